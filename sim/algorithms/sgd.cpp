// Synchronous SGD (docs/algorithms.md §2) — and qsgd, ef-sgd: sgd with their compressor —
// over a centralized collective (sim/collectives/):
//   worker i:  g_i = ∇f_i(x; B_i),  contributes C(g_i);
//   update:    ḡ = (1/n) Σ_i C(g_i)  (summed in worker order),  x ← local_step(x, ḡ)
//              (local_step.hpp: momentum, weight decay, prox, learning-rate schedule).
// Over a parameter server the update runs once, on the server's model (the one metrics
// evaluate), and the server sends x (fp32) instead of ḡ; over allgather and ring
// all-reduce every worker applies it to its replica (identical on all; worker 0's is
// evaluated). C is stream 0 of the worker's compressor (error feedback keeps its residual).
//   Li et al., OSDI 2014 (parameter server); Alistarh et al., "QSGD: Communication-
//   Efficient SGD via Gradient Quantization and Encoding", NeurIPS 2017 (qsgd); Karimireddy
//   et al., "Error Feedback Fixes SignSGD and other Gradient Compression Schemes", ICML 2019
//   (ef-sgd).
//
// Where the math runs: the gradient and the encoding of C(g_i) in one compute job; then
//   parameter server: the server's model is decoded at the start of the next gradient job;
//   allgather:        the n decodes and the step in a compute job of no simulated time;
//   ring all-reduce:  the chunks are summed hop by hop (engine thread), the step inline.
#include <optional>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/collectives/allgather.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/runtime/worker_math.hpp"

namespace dlsim::sim {

namespace {

// Where a worker's update runs, per collective (see above).
enum class Update { on_server, in_job, inline_ };

// What SGD reads of algorithm.*, read once (options() below).
struct SgdOptions {
  const AlgorithmSpec* step = nullptr;  // the local step's parameters (local_step.hpp)
  CompressorSpec compressor;            // C, for the ring's exact shortcut
  std::int64_t batch_size = 0;
  Update update = Update::inline_;
};

SgdOptions options(const Training& t, Update update) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  return {&a, a.compressor, a.batch_size, update};
}

Task<void> worker(Training& t, std::shared_ptr<Collective> collective, int id,
                  std::shared_ptr<const SgdOptions> options) {
  const SgdOptions& o = *options;
  Node& me = t.nodes[std::size_t(id)];
  WorkerMath math(t, id);
  const std::unique_ptr<Endpoint> ep = collective->join(id, math);
  const std::int64_t iterations = t.recorder.iteration_limit();
  models::Vector x = t.shared_start_for(id), momentum, g, mean;
  auto step = [&](std::int64_t k) {
    ep->result(mean);
    local_step_at(k, iterations, x, momentum, mean, *o.step, t.objective);
  };
  for (std::int64_t k = 0; k < iterations; ++k) {
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      if (o.update == Update::on_server && k > 0) ep->result(x);  // the server's model
      const models::ComputeCost cost = math.gradient(x, g);
      ep->contribute(g);
      return cost;
    });
    co_await ep->exchange();
    if (o.update == Update::on_server) continue;  // the server deposits
    if (o.update == Update::in_job) {
      co_await me.compute([&] {
        step(k);
        return models::ComputeCost{};
      });
    } else {
      const ScopedWall timer = t.wall.time_math();
      step(k);
    }
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

// The server's half of SGD over a parameter server: x ← local_step(x, ḡ), deposited,
// and sent back to every worker.
ParameterServer::Reply server_update(Training& t, const SgdOptions& o) {
  struct Model {
    models::Vector x, momentum;
  };
  auto model = std::make_shared<Model>(Model{t.shared_start_for(t.workers()), {}});
  const AlgorithmSpec& a = *o.step;
  return [&t, &a, model](std::uint64_t round, models::Vector& mean) -> const models::Vector& {
    const auto k = std::int64_t(round);
    {
      const ScopedWall timer = t.wall.time_math();
      local_step_at(k, t.recorder.iteration_limit(), model->x, model->momentum, mean, a,
                    t.objective);
    }
    t.recorder.deposit(0, k + 1, model->x);
    return model->x;
  };
}

void launch(Engine& engine, Training& t, const std::shared_ptr<Collective>& collective,
            const SgdOptions& o) {
  const auto shared = std::make_shared<const SgdOptions>(o);
  for (int i = 0; i < collective->workers_to_simulate(); ++i)
    engine.spawn(worker(t, collective, i, shared));
  collective->launch(engine);  // after the workers (the server is the last process)
}

}  // namespace

void launch_sgd_parameter_server(Engine& engine, Training& t) {
  const SgdOptions o = options(t, Update::on_server);
  ParameterServer::Options ps;
  ps.reply = server_update(t, o);
  launch(engine, t, std::make_shared<ParameterServer>(t, std::move(ps)), o);
}

void launch_sgd_allgather(Engine& engine, Training& t) {
  launch(engine, t, std::make_shared<Allgather>(t), options(t, Update::in_job));
}

namespace {
RingAllReduce::Options ring_options(const AlgorithmSpec& a, const models::Objective& objective) {
  RingAllReduce::Options ring;
  ring.compressor = a.compressor;
  ring.compute_per_round = objective.gradient_cost(a.batch_size);  // no data: always B
  ring.round_alone = false;
  return ring;
}
}  // namespace

void launch_sgd_ring_allreduce(Engine& engine, Training& t) {
  const SgdOptions o = options(t, Update::inline_);
  launch(engine, t,
         std::make_shared<RingAllReduce>(t, ring_options(t.scenario.algorithm, t.objective)), o);
}

int sgd_simulated_workers(const Scenario& s, const models::Objective& objective) {
  const bool one = s.algorithm.collective == "ring-allreduce" &&
                   RingAllReduce::exact_for(s, objective, ring_options(s.algorithm, objective));
  return one ? 1 : int(s.workers);
}

}  // namespace dlsim::sim
