// Synchronous SGD over all-gather (ALGORITHMS.md §2): every worker sends C(g_i) to
// every other worker, receives all of theirs, and applies the same update
//   x ← local_step(x, (1/n) Σ_j C(g_j))   (summed in worker order, its own C(g_i) as
// decoded from its own message), so all replicas stay identical. Worker 0's replica
// is the one metrics evaluate.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"

namespace dlsim::sim {

namespace {

Task<void> worker(Training& t, int id) {
  Node& me = t.nodes[id];
  const int n = t.workers();
  WorkerMath math(t, id);
  std::vector<NodeId> others;
  for (int j = 0; j < n; ++j)
    if (j != id) others.push_back(j);
  models::Vector x = t.initial, momentum, g, received, sum;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute(math.gradient(x, g));
    const Payload mine = math.encode(g, t.objective.parameters());
    co_await me.broadcast(others, k, mine);
    sum = models::Vector::Zero(x.size());
    for (int j = 0; j < n; ++j) {
      if (j == id) {
        math.decode(Message{id, id, std::uint64_t(k), mine}, received);
      } else {
        Message m = co_await me.recv(j, k);
        math.decode(m, received);
      }
      sum += received;
    }
    {
      ScopedWall timer(t.wall.math_s);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, sum / double(n),
                    t.scenario.algorithm, t.objective);
    }
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

void launch_sgd_allgather(Engine& engine, Training& t) {
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i));
}

}  // namespace dlsim::sim
