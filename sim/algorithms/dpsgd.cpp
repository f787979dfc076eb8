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

// One worker's state and the math of its two compute jobs. The jobs' lambdas capture this
// object and k only: a coroutine frame keeps each lambda twice (the temporary and the
// awaiter's copy), and a million workers hold their frames at once.
class DpsgdWorker {
 public:
  DpsgdWorker(Training& t, int id, DpsgdSetup setup, const topo::GraphSchedule& graph)
      : t_(t),
        setup_(setup),
        math_(t, id),
        gossip_(t.nodes[id], graph, t.failures, FailureRule::row),
        node_(t.initial_for(id)),
        limit_(t.recorder.iteration_limit()) {}

  NeighbourExchange& gossip() { return gossip_; }
  const models::Vector& model() const { return node_.model(); }
  std::int64_t limit() const { return limit_; }

  // The local step on x_i and its encoding into message(); begins the mixing.
  models::ComputeCost step(std::int64_t k) {
    models::Vector& x = node_.model();
    const models::ComputeCost cost = math_.gradient(x, g_);
    local_step_at(k, limit_, x, momentum_, g_, setup_.local_step, t_.objective);
    message_ = math_.encode(x, t_.objective.parameters());
    node_.begin_mix(gossip_.self_weight());
    return cost;
  }
  Payload& message() { return message_; }

  // Decoding and mixing of the round's arrivals: charges nothing.
  models::ComputeCost mix() {
    mix_arrivals(gossip_.arrivals(), node_, received_,
                 [&](const Message& m, models::Vector& out) { math_.decode(m, out); });
    return {};
  }

 private:
  Training& t_;
  DpsgdSetup setup_;
  WorkerMath math_;
  NeighbourExchange gossip_;
  DpsgdNode node_;
  std::int64_t limit_;
  models::Vector momentum_, g_, received_;
  Payload message_;  // this iteration's, until the exchange takes it
};

Task<void> worker(Training& t, int id, DpsgdSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  DpsgdWorker w(t, id, setup, *graph);
  NeighbourExchange& gossip = w.gossip();
  for (std::int64_t k = 0; k < w.limit(); ++k) {
    if (fails_now(t, id, k)) co_return;  // failures.hpp
    gossip.begin_round(k);
    // this worker's own state only (node.hpp)
    co_await me.compute([&w, k] { return w.step(k); });
    co_await gossip.exchange(std::uint64_t(k), std::move(w.message()), k);
    // Decoding and mixing: charges nothing (on the spot for a model without math).
    co_await me.compute_uncharged([&w] { return w.mix(); }, t.objective.has_math());
    gossip.release();  // on the engine thread (payload_pool.hpp)
    t.recorder.deposit(id, k + 1, w.model());
  }
}

}  // namespace

void launch_dpsgd(Engine& engine, Training& t) {
  const auto graph = communication_graph(t.scenario);
  const DpsgdSetup setup = dpsgd_setup(t);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
