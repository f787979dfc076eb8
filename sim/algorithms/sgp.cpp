// Stochastic gradient push (ALGORITHMS.md §3, sgp): push-sum gossip on any graph,
// directed and time-varying included. Node i keeps a numerator x_i and a weight w_i
// (init 1); iteration k:
//   z_i = x_i / w_i;  g = ∇f_i(z_i; B);  x_i ← local_step(x_i, g)   (ALGORITHMS §3 step 4)
//   send (x_i, w_i) to out_k(i);   (x_i, w_i) ← p_ii (x_i, w_i) + Σ_{j∈in_k(i)} p_ij (x_j, w_j)
// with P^k the round's column-stochastic push weights (topologies/mixing_weights.hpp:
// sender j keeps p_jj and gives p_ij to each out-neighbour; uniform is 1/(out_j + 1)).
// Σ_i x_i and Σ_i w_i are conserved, so z_i converges to the average. A message is the
// fp32 vector [x_i; w_i] (d + 1 coordinates, 32(d + 1) bits); the sender keeps the value
// as sent (decoded), so the sums are conserved up to double rounding. Metrics see the
// de-biased models z_i. A failed neighbour's push share stays with the sender
// (node failures, failures.hpp).
// Threads: the local step and the encoding are one compute job; the engine thread only
// collects the round's messages, which a second compute job (no simulated time) decodes
// and mixes in, in the order received; the messages are let go on the engine thread
// after it, so the senders' payload pools see releases only between phases
// (sim/network/payload_pool.hpp).
//
// @inproceedings{assran2019stochastic,
//   title={Stochastic Gradient Push for Distributed Deep Learning},
//   author={Assran, Mahmoud and Loizou, Nicolas and Ballas, Nicolas and Rabbat, Michael},
//   booktitle={ICML}, year={2019}}
// @inproceedings{kempe2003gossip,
//   title={Gossip-Based Computation of Aggregate Information},
//   author={Kempe, David and Dobra, Alin and Gehrke, Johannes}, booktitle={FOCS}, year={2003}}
#include <memory>
#include <optional>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// One term of the mixing sum: p_ij times a received [x_j; w_j], or (a failed out-
/// neighbour's share coming back, no message) times this node's own value as sent.
struct MixTerm {
  double weight = 0;
  std::optional<Message> message;
};

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  const models::Index d = t.objective.parameters();
  const bool has_math = t.objective.has_math();
  models::Vector x = t.initial_for(id), z = x, momentum, g, received, sent;
  // (x, w) travel together as [x; w]; `pair` holds it.
  models::Vector pair(has_math ? x.size() + 1 : 0), mixed;
  double w = 1.0;
  std::vector<int> failed;     // neighbours found failed (static graphs only; failures.hpp)
  std::vector<NodeId> out;     // this round's out-neighbours
  std::vector<MixTerm> terms;  // this round's, in the order received
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    if (fails_now(t, id, k)) co_return;
    topo::Neighborhood nb = graph->neighborhood(id, graph->time_varying() ? k : 0);
    for (int dead : failed) forget_push_peer(nb, *graph, id, dead);
    out.assign(nb.out.begin(), nb.out.end());
    Payload p;
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      const models::ComputeCost cost = math.gradient(z, g);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, t.scenario.algorithm,
                    t.objective);
      if (has_math) {
        pair.head(x.size()) = x;
        pair[x.size()] = w;
      }
      p = math.encode_fp32(pair, d + 1);
      math.decode_fp32(Message{me.id(), me.id(), std::uint64_t(k), p}, sent);  // as sent
      mixed = nb.self_weight * sent;
      return cost;
    });
    co_await me.broadcast(out, std::uint64_t(k), std::move(p));
    const SimTime since = me.now();
    terms.clear();
    for (std::size_t j = 0; j < nb.in.size();) {
      std::optional<Message> m =
          co_await receive_or_failure(t, id, NodeId(nb.in[j]), std::uint64_t(k), k, since);
      if (!m) {  // in[j] failed: this round's share pushed to it comes back
        const int dead = nb.in[j];
        terms.push_back({push_share(*graph, dead, id), std::nullopt});
        forget_push_peer(nb, *graph, id, dead);
        failed.push_back(dead);
        continue;
      }
      terms.push_back({nb.in_weights[j], std::move(m)});
      ++j;
    }
    // Decoding and mixing: a compute job that charges nothing (no simulated time).
    co_await me.compute([&] {
      for (const MixTerm& term : terms) {
        if (!term.message) {
          if (has_math) mixed += term.weight * sent;
          continue;
        }
        math.decode_fp32(*term.message, received);
        if (has_math) mixed += term.weight * received;
      }
      if (has_math) {
        x = mixed.head(x.size());
        w = mixed[x.size()];
        z = x / w;
      }
      return models::ComputeCost{};
    });
    terms.clear();  // let go on the engine thread (payload_pool.hpp)
    t.recorder.deposit(id, k + 1, z);
  }
}

}  // namespace

void launch_sgp(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
