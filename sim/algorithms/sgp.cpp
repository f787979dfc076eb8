// The stochastic gradient push process (Assran et al. 2019; the push-sum rule and its
// papers: sgp_node.hpp). Iteration k of node i:
//   one compute job: g = ∇f_i(z_i; B), the local step on x_i, the encoding of [x_i; w_i]
//     in fp32 (d + 1 coordinates, 32(d + 1) bits) and its decoding, the value as sent;
//   one gossip round of round k's graph (sim/collectives/neighbour_exchange.hpp):
//     [x_i; w_i] to out_k(i), the in-neighbours' back, tagged k;
//   a compute job that charges nothing: decoding and mixing in the order received (with
//     a model without math, nothing to decode, done on the spot).
// The messages are let go on the engine thread after it, so the senders' payload pools
// see releases only between phases (sim/network/payload_pool.hpp). Metrics see the
// de-biased models z_i. A failed neighbour's push share stays with the sender (column
// rule, failures.hpp).
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/mix_arrivals.hpp"
#include "sim/algorithms/sgp_node.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "sim/runtime/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// What SGP takes from the scenario's algorithm section.
struct SgpSetup {
  const AlgorithmSpec& local_step;  // momentum, weight decay, schedule (local_step.hpp)
};

/// The one place that reads t.scenario.algorithm for SGP.
SgpSetup sgp_setup(const Training& t) {
  return {t.scenario.algorithm};
}

Task<void> worker(Training& t, int id, SgpSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  NeighbourExchange gossip(me, *graph, t.failures, FailureRule::column);
  SgpNode node(t.initial_for(id));
  const models::Index d = t.objective.parameters();
  const std::int64_t limit = t.recorder.iteration_limit();
  models::Vector momentum, g, received, sent;
  for (std::int64_t k = 0; k < limit; ++k) {
    if (fails_now(t, id, k)) co_return;  // failures.hpp
    gossip.begin_round(k);
    Payload p;
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      const models::ComputeCost cost = math.gradient(node.debiased(), g);
      local_step_at(k, limit, node.numerator(), momentum, g, setup.local_step, t.objective);
      p = math.encode_fp32(node.message(), d + 1);
      math.decode_fp32(Message{me.id(), me.id(), std::uint64_t(k), p}, sent);  // as sent
      node.begin_mix(gossip.self_weight(), sent);
      return cost;
    });
    co_await gossip.exchange(std::uint64_t(k), std::move(p), k);
    // Decoding and mixing: charges nothing (on the spot for a model without math).
    co_await me.compute_uncharged(
        [&] {
          mix_arrivals(gossip.arrivals(), node, received,
                       [&](const Message& m, models::Vector& out) { math.decode_fp32(m, out); });
          return models::ComputeCost{};
        },
        t.objective.has_math());
    gossip.release();  // on the engine thread (payload_pool.hpp)
    t.recorder.deposit(id, k + 1, node.debiased());
  }
}

}  // namespace

void launch_sgp(Engine& engine, Training& t) {
  const auto graph = communication_graph(t.scenario);
  const SgpSetup setup = sgp_setup(t);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
