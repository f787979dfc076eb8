// The D-PSGD process (Lian et al. 2017; the rule and the paper: dpsgd_node.hpp).
// Iteration k of node i:
//   local step and encoding of x_i (one compute job);
//   one gossip round of round k's graph (sim/collectives/neighbour_exchange.hpp): x_i to
//     out_k(i), the models of in_k(i) back, tagged k, so a later round's message is never
//     mixed in early;
//   decoding and mixing in the order received (a compute job that charges nothing; with
//     a model without math, nothing to decode, done on the spot).
// Works on every topology kind: static, time-varying and directed (out- and in-neighbours
// differ). Full models (fp32) travel on every arc. A failed in-neighbour's weight goes to
// w_ii (row rule, failures.hpp). Metrics see x_i after the iteration.
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/dpsgd_node.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/mix_arrivals.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "sim/runtime/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// What D-PSGD takes from the scenario's algorithm section.
struct DpsgdSetup {
  const AlgorithmSpec& local_step;  // momentum, weight decay, schedule (local_step.hpp)
};

/// The one place that reads t.scenario.algorithm for D-PSGD.
DpsgdSetup dpsgd_setup(const Training& t) {
  return {t.scenario.algorithm};
}

Task<void> worker(Training& t, int id, DpsgdSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  NeighbourExchange gossip(me, *graph, t.failures, FailureRule::row);
  DpsgdNode node(t.initial_for(id));
  models::Vector momentum, g, received;
  const std::int64_t limit = t.recorder.iteration_limit();
  for (std::int64_t k = 0; k < limit; ++k) {
    if (fails_now(t, id, k)) co_return;  // failures.hpp
    gossip.begin_round(k);
    Payload message;
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      models::Vector& x = node.model();
      const models::ComputeCost cost = math.gradient(x, g);
      local_step_at(k, limit, x, momentum, g, setup.local_step, t.objective);
      message = math.encode(x, t.objective.parameters());
      node.begin_mix(gossip.self_weight());
      return cost;
    });
    co_await gossip.exchange(std::uint64_t(k), std::move(message), k);
    // Decoding and mixing: charges nothing (on the spot for a model without math).
    co_await me.compute_uncharged(
        [&] {
          mix_arrivals(gossip.arrivals(), node, received,
                       [&](const Message& m, models::Vector& out) { math.decode(m, out); });
          return models::ComputeCost{};
        },
        t.objective.has_math());
    gossip.release();  // on the engine thread (payload_pool.hpp)
    t.recorder.deposit(id, k + 1, node.model());
  }
}

}  // namespace

void launch_dpsgd(Engine& engine, Training& t) {
  const auto graph = communication_graph(t.scenario);
  const DpsgdSetup setup = dpsgd_setup(t);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
