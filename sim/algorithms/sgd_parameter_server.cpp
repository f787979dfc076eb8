// Synchronous SGD over a parameter server (ALGORITHMS.md §2):
//   worker i: g_i = ∇f_i(x; B_i), send C(g_i) to the server, receive the new x;
//   server:   ḡ = (1/n) Σ_i C(g_i)  (summed in worker order), x ← local_step(x, ḡ),
//             send x (fp32) to every worker.
// The server is node n with its own NIC; its model is the one metrics evaluate.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"

namespace dlsim::sim {

namespace {

Task<void> worker(Training& t, int id) {
  Node& me = t.nodes[id];
  const NodeId server = t.workers();
  WorkerMath math(t, id);
  models::Vector x = t.initial, g;
  const auto d = t.objective.parameters();
  Message model;  // the server's reply of the previous iteration, decoded in the job
  Payload message;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      if (k > 0) math.decode_fp32(model, x);
      const models::ComputeCost cost = math.gradient(x, g);
      message = math.encode(g, d);
      return cost;
    });
    co_await me.send(server, k, std::move(message));
    model = co_await me.recv(server, k);
  }
}

Task<void> server(Training& t, std::vector<NodeId> workers) {
  Node& me = t.nodes[t.workers()];
  WorkerMath math(t, t.workers());
  const models::Objective& f = t.objective;
  models::Vector x = t.initial, momentum, sum, g;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    sum = models::Vector::Zero(x.size());
    for (NodeId i : workers) {
      Message m = co_await me.recv(i, k);
      math.decode(m, g);
      sum += g;
    }
    {
      ScopedWall timer(t.wall.math_s);
      sum /= double(workers.size());  // the average gradient, in place (no temporary)
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, sum, t.scenario.algorithm, f);
    }
    t.recorder.deposit(0, k + 1, x);
    co_await me.broadcast(workers, k, math.encode_fp32(x, f.parameters()));
  }
}

}  // namespace

void launch_sgd_parameter_server(Engine& engine, Training& t) {
  std::vector<NodeId> workers(t.workers());
  for (int i = 0; i < t.workers(); ++i) workers[i] = i;
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i));
  engine.spawn(server(t, std::move(workers)));
}

}  // namespace dlsim::sim
