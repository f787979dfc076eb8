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
// round's mixing already: it mixes its own value with j's weight in place of j's. The
// detection and both rules live in the gossip collective
// (sim/collectives/neighbour_exchange.hpp, FailureRule); the per-node classes apply the
// weight it reports (dpsgd_node.hpp, choco_node.hpp, sgp_node.hpp).
#pragma once

#include "sim/runtime/node_failures.hpp"
#include "sim/runtime/training.hpp"

namespace dlsim::sim {

/// Worker `id` at the top of its iteration k: true when it fails now. It has then left
/// the metrics (rows from iteration k + 1 on average over the survivors) and the caller
/// must return without sending anything.
inline bool fails_now(Training& t, int id, std::int64_t k) {
  if (!t.failures || !t.failures->stops_now(NodeId(id), k)) return false;
  t.recorder.retire(id, k);
  return true;
}

}  // namespace dlsim::sim
