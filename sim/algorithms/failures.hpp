// How the gossip algorithms live with failed neighbours (issue 10; the failure model and
// its detector are in sim/runtime/node_failures.hpp). Every supported algorithm runs on a
// static undirected graph and re-normalizes its weights the same way: a node that finds
// neighbour j failed gives j's weight to itself and never sends to j again.
//   dpsgd, choco-sgd, adag-sgd, choco-gossip (row rule):  w_ii ← w_ii + w_ij
//     Rows keep summing to 1; with symmetric weights (metropolis, max-degree) W stays
//     symmetric and doubly stochastic on the survivors once every neighbour of j has
//     dropped it, so the survivors' average is preserved from then on (dpsgd, and CHOCO
//     whose r_i = Σ_{j alive} w_ij (x̂_j − x̂_i) then sums to zero over the survivors).
//     CHOCO drops j's public copy x̂_j from s_i (it keeps one copy per neighbour when
//     failures are configured, deg_i · d more memory).
//   sgp (column rule, push-sum):  p_ii ← p_ii + p_ji
//     i keeps the share of (x_i, w_i) it pushed to j, including the round in which it
//     notices (j stopped before it could read that round's messages), so Σ x and Σ w
//     over the survivors are conserved and z_i = x_i / w_i converges to their ratio.
// The node notices in the round whose message from j never comes and re-normalizes that
// round's mixing already: it mixes its own value with j's weight in place of j's.
#pragma once

#include <algorithm>
#include <optional>
#include <vector>

#include "sim/algorithms/training.hpp"
#include "sim/runtime/node_failures.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

/// Worker `id` at the top of its iteration k: true when it fails now. It has then left
/// the metrics (rows from iteration k + 1 on average over the survivors) and the caller
/// must return without sending anything.
inline bool fails_now(Training& t, int id, std::int64_t k) {
  if (!t.failures || !t.failures->stops_now(NodeId(id), k)) return false;
  t.recorder.retire(id, k);
  return true;
}

/// Receives `src`'s message tagged `tag` for worker `id` in its iteration k, or nullopt
/// once src has failed; `since` is when the worker began waiting for the round's
/// messages. Without configured failures this is a plain receive.
inline NodeFailures::Receive receive_or_failure(Training& t, int id, NodeId src, std::uint64_t tag,
                                                std::int64_t k, SimTime since) {
  return {t.failures, t.nodes[std::size_t(id)], src, tag, since, k};
}

/// Removes `dead` from `peers`, if there.
inline void forget_peer(std::vector<NodeId>& peers, NodeId dead) {
  peers.erase(std::remove(peers.begin(), peers.end(), dead), peers.end());
}

/// The push weight p_{to,from} of a static graph: the share of `from`'s value that `to`
/// mixes in (to's in-weight for from; 0 when they are not neighbours).
inline double push_share(const topo::GraphSchedule& graph, int to, int from) {
  const topo::Neighborhood nb = graph.neighborhood(to, 0);
  for (std::size_t j = 0; j < nb.in.size(); ++j)
    if (nb.in[j] == from) return nb.in_weights[j];
  return 0.0;
}

/// Push-sum on a static graph: node `id` neither pushes to nor hears from the failed
/// `dead` any more and keeps the share it used to give it: p_ii ← p_ii + p_{dead,id}.
inline void forget_push_peer(topo::Neighborhood& nb, const topo::GraphSchedule& graph, int id,
                             int dead) {
  nb.self_weight += push_share(graph, dead, id);
  nb.out.erase(std::remove(nb.out.begin(), nb.out.end(), dead), nb.out.end());
  for (std::size_t j = 0; j < nb.in.size(); ++j) {
    if (nb.in[j] != dead) continue;
    nb.in.erase(nb.in.begin() + std::ptrdiff_t(j));
    nb.in_weights.erase(nb.in_weights.begin() + std::ptrdiff_t(j));
    return;
  }
}

}  // namespace dlsim::sim
