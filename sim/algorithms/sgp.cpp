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

// One worker's state and the math of its two compute jobs; the jobs' lambdas capture this
// object and k only, which keeps the coroutine frame small (dpsgd.cpp).
class SgpWorker {
 public:
  SgpWorker(Training& t, int id, SgpSetup setup, const topo::GraphSchedule& graph)
      : t_(t),
        self_(t.nodes[id].id()),
        setup_(setup),
        math_(t, id),
        gossip_(t.nodes[id], graph, t.failures, FailureRule::column),
        node_(t.initial_for(id)),
        d_(t.objective.parameters()),
        limit_(t.recorder.iteration_limit()) {}

  NeighbourExchange& gossip() { return gossip_; }
  const models::Vector& debiased() const { return node_.debiased(); }
  std::int64_t limit() const { return limit_; }

  // The local step on x_i, the encoding of [x_i; w_i] into message() and its decoding,
  // the value as sent; begins the mixing.
  models::ComputeCost step(std::int64_t k) {
    const models::ComputeCost cost = math_.gradient(node_.debiased(), g_);
    local_step_at(k, limit_, node_.numerator(), momentum_, g_, setup_.local_step, t_.objective);
    message_ = math_.encode_fp32(node_.message(), d_ + 1);
    math_.decode_fp32(Message{self_, self_, std::uint64_t(k), message_}, sent_);  // as sent
    node_.begin_mix(gossip_.self_weight(), sent_);
    return cost;
  }
  Payload& message() { return message_; }

  // Decoding and mixing of the round's arrivals: charges nothing.
  models::ComputeCost mix() {
    mix_arrivals(gossip_.arrivals(), node_, received_,
                 [&](const Message& m, models::Vector& out) { math_.decode_fp32(m, out); });
    return {};
  }

 private:
  Training& t_;
  NodeId self_;
  SgpSetup setup_;
  WorkerMath math_;
  NeighbourExchange gossip_;
  SgpNode node_;
  models::Index d_;
  std::int64_t limit_;
  models::Vector momentum_, g_, received_, sent_;
  Payload message_;  // this iteration's, until the exchange takes it
};

Task<void> worker(Training& t, int id, SgpSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  SgpWorker w(t, id, setup, *graph);
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
    t.recorder.deposit(id, k + 1, w.debiased());
  }
}

}  // namespace

void launch_sgp(Engine& engine, Training& t) {
  const auto graph = communication_graph(t.scenario);
  const SgpSetup setup = sgp_setup(t);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
