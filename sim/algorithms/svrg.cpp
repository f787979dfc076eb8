// SVRG, prox-SVRG and LPC-SVRG (docs/algorithms.md §2).
//   Johnson, Zhang, "Accelerating Stochastic Gradient Descent using Predictive Variance
//   Reduction", NeurIPS 2013.  @inproceedings{johnson2013svrg}
//   Xiao, Zhang, "A Proximal Stochastic Gradient Method with Progressive Variance
//   Reduction", SIAM J. Optim. 24(4), 2014.  @article{xiao2014proxsvrg}
//   Yu, Wu, Huang, "Exploring Fast and Communication-Efficient Algorithms in Large-scale
//   Distributed Networks", AISTATS 2019, arXiv:1901.08924 (LPC-SVRG).
//   @inproceedings{yu2019lpcsvrg, author = {Yu, Yue and Wu, Jiaxiang and Huang, Junzhou},
//     title = {Exploring Fast and Communication-Efficient Algorithms in Large-scale
//     Distributed Networks}, booktitle = {AISTATS}, year = {2019}}
//
// The rule implemented, epoch p = 0, 1, ... of T = epoch_length inner steps:
//   snapshot   ỹ ← x (snapshot "last") or the mean of the previous epoch's iterates
//              ("average"; x restarts from ỹ);
//   μ = (1/n) Σ_i ∇f_i(ỹ)   every worker's gradient on its whole shard (FLOPs of the
//              shard charged), exchanged in fp32 (lpc-svrg `quantize_snapshot`: with the
//              scenario's compressor, stream 1);
//   inner t:   d_i = ∇f_i(x; B) − ∇f_i(ỹ; B)   (the same batch at both points)
//              quantize "vr-gradient" (svrg, lpc-svrg default): send C(d_i + μ),
//                  ∇̃ = (1/n) Σ_i C(d_i + μ);
//              quantize "difference" (lpc-svrg): send C(d_i), ∇̃ = μ + (1/n) Σ_i C(d_i);
//              x ← prox_{ηR}(x − η∇̃)   (local_step.hpp: momentum and weight decay as for
//              sgd; prox = soft-thresholding by ηλ1, i.e. prox-SVRG when l1 > 0).
// C is the scenario compressor (svrg: none by default; lpc-svrg: lpc, 4 bits, clip max),
// with error feedback when the compressor asks for it. Every worker holds a replica of
// x, ỹ and μ updated with the same mean (svrg_common.hpp: the collective), so one
// iteration = one inner step; the snapshot round is extra communication at the start of
// each epoch. Each round's message is encoded in the worker's compute job (the
// collective's contribute()); the mean is decoded and the step taken on the engine thread.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/svrg_common.hpp"
#include "sim/algorithms/svrg_keys.hpp"

namespace dlsim::sim {

namespace {

// Compressor streams (each its own state and random stream): inner and snapshot gradients.
struct SvrgStreams {
  static constexpr int inner = 0, snapshot = 1;
};

// What the processes read of algorithm.*, read once in launch_svrg().
struct SvrgOptions {
  const AlgorithmSpec* step = nullptr;  // the local step's parameters (local_step.hpp)
  bool send_difference = false;         // quantize "difference"
  bool average_snapshot = false;        // snapshot "average"
  RoundFormat snapshot_format, inner_format;
  std::int64_t epoch = 1;  // T
  std::int64_t batch_size = 0;
};

Task<void> worker(Training& t, std::shared_ptr<Collective> collective, int id,
                  std::shared_ptr<const SvrgOptions> options) {
  const SvrgOptions& o = *options;
  const std::int64_t T = o.epoch;
  Node& me = t.nodes[std::size_t(id)];
  WorkerMath math(t, id);
  const std::unique_ptr<Endpoint> ep = collective->join(id, math);
  BatchDifference difference(t, id, o.batch_size);

  models::Vector x = t.shared_start_for(id), snapshot, mu, momentum, g_snapshot, d, message, mean,
                 step;
  models::Vector iterate_sum = models::Vector::Zero(x.size());
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    if (k % T == 0) {  // new epoch: snapshot and its full gradient
      if (o.average_snapshot && k > 0) {
        const ScopedWall timer = t.wall.time_math();
        x = iterate_sum / double(T);
      }
      snapshot = x;
      iterate_sum.setZero();
      co_await me.compute([&] {  // this worker's own state only (node.hpp)
        full_gradient(t, id, snapshot, g_snapshot);
        ep->contribute(g_snapshot, o.snapshot_format);
        return full_gradient_cost(t, id, o.batch_size, T);
      });
      co_await ep->exchange();
      ep->result(mu);
    }
    co_await me.compute([&] {
      const models::ComputeCost cost = difference(x, snapshot, d);
      if (o.send_difference) {
        ep->contribute(d, o.inner_format);
      } else {
        message = d + mu;
        ep->contribute(message, o.inner_format);
      }
      return cost;
    });
    co_await ep->exchange();
    ep->result(mean);
    {
      const ScopedWall timer = t.wall.time_math();
      if (o.send_difference) step = mu + mean;
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, o.send_difference ? step : mean,
                    *o.step, t.objective);
      iterate_sum += x;
    }
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

void launch_svrg(Engine& engine, Training& t) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const SvrgFamilyOptions& family = a.options_as<SvrgFamilyOptions>();
  SvrgOptions o;
  o.step = &a;
  o.send_difference = family.send_difference;
  o.average_snapshot = family.average_snapshot;
  o.snapshot_format = {!family.quantize_snapshot, SvrgStreams::snapshot};
  o.inner_format = {false, SvrgStreams::inner};
  o.epoch = epoch_length(t);
  o.batch_size = a.batch_size;
  const auto options = std::make_shared<const SvrgOptions>(o);
  const auto collective = svrg_collective(t, a.collective, family.downlink);
  for (int i = 0; i < collective->workers_to_simulate(); ++i)
    engine.spawn(worker(t, collective, i, options));
  collective->launch(engine);  // the server, if any, after the workers
}

}  // namespace dlsim::sim
