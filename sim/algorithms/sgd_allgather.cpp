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
  std::vector<Message> messages(std::size_t(n), Message{});
  Payload mine;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      const models::ComputeCost cost = math.gradient(x, g);
      mine = math.encode(g, t.objective.parameters());
      return cost;
    });
    co_await me.broadcast(others, k, mine);
    for (int j = 0; j < n; ++j) {
      if (j == id)
        messages[std::size_t(j)] = Message{id, id, std::uint64_t(k), mine};
      else
        messages[std::size_t(j)] = co_await me.recv(j, k);
    }
    // Decoding the n messages and the step: a job that takes no simulated time.
    co_await me.compute([&] {
      sum = models::Vector::Zero(x.size());
      for (const Message& m : messages) {
        math.decode(m, received);
        sum += received;
      }
      for (Message& m : messages) m.payload.reset();  // release the round's buffers
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, sum / double(n),
                    t.scenario.algorithm, t.objective);
      return models::ComputeCost{};
    });
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

void launch_sgd_allgather(Engine& engine, Training& t) {
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i));
}

}  // namespace dlsim::sim
