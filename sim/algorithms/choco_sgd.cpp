// The CHOCO-SGD, AdaG-SGD and CHOCO-gossip process on static symmetric graphs (Koloskova
// et al. 2019/2020, Aketi et al. 2024; the rule, its steps 1–5, the orders and the papers:
// choco_node.hpp). Iteration k of node i, order adagossip:
//   receive round k − 1's messages q_j (k > 0); one compute job: decode them and add them
//   to s_i (step 1), steps 2–5; send q_i to every neighbour (tag k);
// order choco-paper: one compute job (steps 1 with round k − 1's messages, 4, 2–3, 5);
//   send q_i and receive round k's messages (one gossip round, neighbour_exchange.hpp).
// The engine thread only moves messages; decoding happens in the worker's next compute
// job, in the order the messages were received (so the sums are the same doubles), and
// the messages are let go on the engine thread after it, so the senders' payload pools
// see releases only between phases (sim/network/payload_pool.hpp). A failed neighbour
// leaves s_i and gives its weight to w_ii (failures.hpp). Metrics see x_i after the
// iteration. Time-varying graphs: choco_time_varying.cpp.
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/choco_node.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "sim/runtime/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// What CHOCO-SGD, AdaG-SGD and CHOCO-gossip take from the scenario's algorithm section.
struct ChocoSetup {
  ConsensusOptions consensus;
  ChocoOrder order;
  bool gradients;                   // choco-gossip: no local step
  const AlgorithmSpec& local_step;  // momentum, weight decay, schedule (local_step.hpp)
};

/// The one place that reads t.scenario.algorithm for the static-graph CHOCO family.
ChocoSetup choco_setup(const Training& t, ChocoVariant variant) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const ChocoOptions& o = a.options_as<ChocoOptions>();
  const bool gradients = variant.local_steps;
  const ChocoOrder order =
      gradients && o.choco_paper_order ? ChocoOrder::choco_paper : ChocoOrder::adagossip;
  return {{o.consensus_step, variant.adaptive, o.beta, o.epsilon}, order, gradients, a};
}

class ChocoWorker {
 public:
  ChocoWorker(Training& t, int id, const ChocoSetup& setup, const topo::GraphSchedule& graph)
      : t_(t),
        me_(t.nodes[id]),
        math_(t, id),
        setup_(setup),
        gossip_(me_, graph, t.failures, FailureRule::row),
        node_(make_node(t, id)),
        dimension_(t.objective.parameters()) {}

  Task<void> run() {
    for (std::int64_t k = 0; k < t_.recorder.iteration_limit(); ++k) {
      if (fails_now(t_, me_.id(), k)) co_return;  // failures.hpp
      // The math between receiving and sending touches only this worker's state: one
      // compute job (node.hpp), run in parallel with the other workers' (--threads).
      if (node_.order() == ChocoOrder::choco_paper) {
        co_await me_.compute([&] { return iterate(k); });
        gossip_.release();
        co_await gossip_.exchange(std::uint64_t(k), std::move(q_), k);
      } else {
        if (k > 0) co_await gossip_.receive(std::uint64_t(k - 1), k);
        co_await me_.compute([&] { return iterate(k); });
        gossip_.release();
        co_await gossip_.send(std::uint64_t(k), std::move(q_));
      }
      t_.recorder.deposit(me_.id(), k + 1, node_.model());
    }
  }

 private:
  // The node starts with the static graph's weights, numbered like gossip_.in().
  ChocoNode make_node(const Training& t, int id) {
    gossip_.begin_round(0);
    const auto w = gossip_.in_weights();
    return ChocoNode(t.initial_for(id), gossip_.self_weight(), {w.begin(), w.end()},
                     setup_.consensus, setup_.order, t.failures != nullptr);
  }

  // Iteration k's compute job: step 1 on the collected messages (a failed neighbour is
  // forgotten in its place in the sequence), steps 2–4 in the node's order, step 5.
  models::ComputeCost iterate(std::int64_t k) {
    const bool sparse = math_.adds_decoded();  // top-k: add the kept coordinates only
    for (const Arrival& a : gossip_.arrivals()) {
      if (!a.message) {
        node_.forget(a.index);
        continue;
      }
      if (sparse) {
        node_.receive_with(
            a.index, [&](double w, models::Vector& v) { math_.add_decoded(*a.message, w, v); });
        continue;
      }
      math_.decode(*a.message, received_);
      node_.receive(a.index, received_);
    }
    models::ComputeCost cost;
    node_.update(k, [&] {
      if (!setup_.gradients) return;
      cost = math_.gradient(node_.model(), gradient_);
      local_step_at(k, t_.recorder.iteration_limit(), node_.model(), momentum_, gradient_,
                    setup_.local_step, t_.objective);
    });
    q_ = math_.encode_difference(node_.model(), node_.public_copy(), dimension_);  // x_i − x̂_i
    const Message own{me_.id(), me_.id(), std::uint64_t(k), q_};
    if (sparse) {  // as the neighbours see it
      node_.sent_with([&](double w, models::Vector& v) { math_.add_own_decoded(own, w, v); });
    } else {
      math_.decode(own, received_);
      node_.sent(received_);
    }
    return cost;
  }

  Training& t_;
  Node& me_;
  WorkerMath math_;
  const ChocoSetup setup_;
  NeighbourExchange gossip_;
  ChocoNode node_;
  models::Index dimension_;
  models::Vector momentum_, gradient_, received_;
  Payload q_;  // this iteration's message
};

Task<void> worker(Training& t, int id, ChocoSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  ChocoWorker w(t, id, setup, *graph);
  co_await w.run();
}

}  // namespace

void launch_choco(Engine& engine, Training& t, ChocoVariant variant) {
  const auto graph = communication_graph(t.scenario);
  if (graph->time_varying()) return launch_choco_time_varying(engine, t, variant);
  const ChocoSetup setup = choco_setup(t, variant);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
