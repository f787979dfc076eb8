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
// de-biased models z_i.
//
// @inproceedings{assran2019stochastic,
//   title={Stochastic Gradient Push for Distributed Deep Learning},
//   author={Assran, Mahmoud and Loizou, Nicolas and Ballas, Nicolas and Rabbat, Michael},
//   booktitle={ICML}, year={2019}}
// @inproceedings{kempe2003gossip,
//   title={Gossip-Based Computation of Aggregate Information},
//   author={Kempe, David and Dobra, Alin and Gehrke, Johannes}, booktitle={FOCS}, year={2003}}
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  const models::Index d = t.objective.parameters();
  const bool has_math = t.objective.has_math();
  models::Vector x = t.initial_for(id), z = x, momentum, g, received;
  // (x, w) travel together as [x; w]; `pair` holds it.
  models::Vector pair(has_math ? x.size() + 1 : 0), mixed;
  double w = 1.0;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    const topo::Neighborhood nb = graph->neighborhood(id, graph->time_varying() ? k : 0);
    const std::vector<NodeId> out(nb.out.begin(), nb.out.end());
    co_await me.compute(math.gradient(z, g));
    {
      ScopedWall timer(t.wall.math_s);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, t.scenario.algorithm,
                    t.objective);
    }
    if (has_math) {
      pair.head(x.size()) = x;
      pair[x.size()] = w;
    }
    Payload p = math.encode_fp32(pair, d + 1);
    math.decode_fp32(Message{me.id(), me.id(), std::uint64_t(k), p}, received);  // as sent
    mixed = nb.self_weight * received;
    co_await me.broadcast(out, std::uint64_t(k), std::move(p));
    for (std::size_t j = 0; j < nb.in.size(); ++j) {
      Message m = co_await me.recv(NodeId(nb.in[j]), std::uint64_t(k));
      math.decode_fp32(m, received);
      if (has_math) mixed += nb.in_weights[j] * received;
    }
    if (has_math) {
      ScopedWall timer(t.wall.math_s);
      x = mixed.head(x.size());
      w = mixed[x.size()];
      z = x / w;
    }
    t.recorder.deposit(id, k + 1, z);
  }
}

}  // namespace

void launch_sgp(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
