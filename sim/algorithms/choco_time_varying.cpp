// The CHOCO-SGD, AdaG-SGD and CHOCO-gossip process on time-varying undirected graphs
// (Koloskova et al. 2019, Aketi et al. 2024; the rule with per-neighbour copies and the
// papers: choco_time_varying_node.hpp). Iteration t of node i:
//   one compute job: the local step (choco-sgd, adag-sgd) and, for every neighbour j of
//     round t, q_{i→j} = C(x_i − x̂_{i→j}) on message stream j + 1 (error feedback keeps one
//     residual per neighbour), its copy updated with the decoded q;
//   one gossip round (neighbour_exchange.hpp): each q_{i→j} to its j, one after the other
//     (random-matching has one neighbour per round), and round t's messages back;
//   a compute job that charges nothing: decoding and the consensus step (with a model
//     without math, done on the spot).
// The messages are let go on the engine thread after it, so the senders' payload pools see
// releases only between phases (sim/network/payload_pool.hpp). Metrics see x_i after the
// iteration; summary.json `gossip_memory` counts the copies.
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/choco_time_varying_node.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "sim/runtime/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// What the CHOCO family takes from the scenario's algorithm section on time-varying graphs.
struct ChocoTimeVaryingSetup {
  ConsensusOptions consensus;
  bool gradients;                   // choco-gossip: no local step
  const AlgorithmSpec& local_step;  // momentum, weight decay, schedule (local_step.hpp)
};

/// The one place that reads t.scenario.algorithm for the CHOCO family on time-varying graphs.
ChocoTimeVaryingSetup choco_time_varying_setup(const Training& t, ChocoVariant variant) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const ChocoOptions& o = a.options_as<ChocoOptions>();
  return {{o.consensus_step, variant.adaptive, o.beta, o.epsilon}, variant.local_steps, a};
}

Task<void> worker(Training& t, int id, ChocoTimeVaryingSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  NeighbourExchange gossip(me, *graph);  // no node failures on time-varying graphs
  ChocoTimeVaryingNode node(t.initial_for(id), setup.consensus);
  const models::Index d = t.objective.parameters();
  const std::int64_t limit = t.recorder.iteration_limit();
  models::Vector momentum, g, received;
  std::vector<Payload> outgoing;  // this round's message to each out-neighbour
  for (std::int64_t k = 0; k < limit; ++k) {
    gossip.begin_round(k);
    const auto out = gossip.out();
    outgoing.resize(out.size());
    // Local step and every outgoing encoding: this worker's own state only (node.hpp).
    co_await me.compute([&] {
      models::ComputeCost cost;
      if (setup.gradients) {
        cost = math.gradient(node.model(), g);
        local_step_at(k, limit, node.model(), momentum, g, setup.local_step, t.objective);
      }
      for (std::size_t o = 0; o < out.size(); ++o) {
        const int j = out[o];
        outgoing[o] = math.encode(node.difference(j), d, j + 1);
        math.decode(Message{me.id(), NodeId(j), std::uint64_t(k), outgoing[o]}, received);
        node.sent(j, received);
      }
      return cost;
    });
    co_await gossip.send_each(std::uint64_t(k), outgoing);
    co_await gossip.receive(std::uint64_t(k), k);
    // Decoding and the consensus step: a compute job that charges nothing (no simulated
    // time), run in parallel with the other workers' (on the spot for a model without math).
    co_await me.compute_uncharged(
        [&] {
          node.begin_mix();
          for (const Arrival& a : gossip.arrivals()) {
            math.decode(*a.message, received);
            node.received(a.from, a.weight, received);
          }
          node.end_mix();
          return models::ComputeCost{};
        },
        t.objective.has_math());
    gossip.release();
    t.recorder.deposit(id, k + 1, node.model());
  }
}

}  // namespace

void launch_choco_time_varying(Engine& engine, Training& t, ChocoVariant variant) {
  const auto graph = communication_graph(t.scenario);
  const ChocoTimeVaryingSetup setup = choco_time_varying_setup(t, variant);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
