// D-PSGD (Lian et al., NeurIPS 2017, "Can Decentralized Algorithms Outperform
// Centralized Algorithms?"; ALGORITHMS.md §3): every node takes its local step, sends
// its new model to its neighbours, then averages with the models it received:
//   x_i ← local_step(x_i, ∇f_i(x_i; B));   x_i ← w_ii x_i + Σ_{j∈N(i)} w_ij x_j
// Full models (fp32) travel on every edge; round k's messages carry tag k.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/graph.hpp"
#include "topologies/mixing_weights.hpp"

namespace dlsim::sim {

namespace {

Task<void> worker(Training& t, int id, std::vector<NodeId> neighbors, double self_weight,
                  std::vector<double> weights) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  models::Vector x = t.initial, momentum, g, received, mixed;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute(math.gradient(x, g));
    {
      ScopedWall timer(t.wall.math_s);
      local_step(x, momentum, g, t.scenario.algorithm, t.objective);
    }
    co_await me.broadcast(neighbors, k, math.encode(x, t.objective.parameters()));
    mixed = self_weight * x;
    for (std::size_t j = 0; j < neighbors.size(); ++j) {
      Message m = co_await me.recv(neighbors[j], k);
      math.decode(m, received);
      if (received.size() == x.size()) mixed += weights[j] * received;
    }
    x = mixed;
    t.recorder.deposit(id, k + 1, x);
  }
}

}  // namespace

void launch_dpsgd(Engine& engine, Training& t) {
  const TopologySpec& spec = t.scenario.topology;
  const topo::Graph graph = communication_graph(t.scenario);
  const topo::MixingWeights w = topo::mixing_weights(graph, topo::weight_rule(spec.weights));
  for (int i = 0; i < t.workers(); ++i) {
    std::vector<NodeId> neighbors(graph.neighbors[i].begin(), graph.neighbors[i].end());
    engine.spawn(worker(t, i, std::move(neighbors), w.self[i], w.neighbor[i]));
  }
}

}  // namespace dlsim::sim
