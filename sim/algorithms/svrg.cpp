// SVRG, prox-SVRG and LPC-SVRG (ALGORITHMS.md §2).
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
// x, ỹ and μ updated with the same mean (svrg_common.hpp), so one iteration = one inner
// step; the snapshot round is extra communication at the start of each epoch.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/svrg_common.hpp"

namespace dlsim::sim {

namespace {

constexpr int kInnerStream = 0, kSnapshotStream = 1;

Task<void> worker(Training& t, int id) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const bool send_difference = a.quantize == "difference";
  const bool average_snapshot = a.snapshot == "average";
  const RoundFormat snapshot_format{!a.quantize_snapshot, kSnapshotStream};
  const RoundFormat inner_format{false, kInnerStream};
  const std::int64_t T = epoch_length(t);
  Node& me = t.nodes[std::size_t(id)];
  WorkerMath math(t, id);
  MeanExchange exchange(t, id, math);
  BatchDifference difference(t, id);

  models::Vector x = t.initial, snapshot, mu, momentum, g_snapshot, d, message, mean, step;
  models::Vector iterate_sum = models::Vector::Zero(x.size());
  std::uint64_t round = 0;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    if (k % T == 0) {  // new epoch: snapshot and its full gradient
      if (average_snapshot && k > 0) {
        ScopedWall timer(t.wall.math_s);
        x = iterate_sum / double(T);
      }
      snapshot = x;
      iterate_sum.setZero();
      co_await me.compute([&] {  // this worker's own state only (node.hpp)
        full_gradient(t, id, snapshot, g_snapshot);
        return full_gradient_cost(t, id);
      });
      co_await exchange.mean(round++, g_snapshot, snapshot_format, mu);
    }
    co_await me.compute([&] {
      const models::ComputeCost cost = difference(x, snapshot, d);
      message = send_difference ? d : models::Vector(d + mu);
      return cost;
    });
    co_await exchange.mean(round++, message, inner_format, mean);
    {
      ScopedWall timer(t.wall.math_s);
      step = send_difference ? models::Vector(mu + mean) : mean;
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, step, a, t.objective);
      iterate_sum += x;
    }
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

// The server's schedule: each epoch is one snapshot round then T inner rounds.
void launch_svrg(Engine& engine, Training& t) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const std::uint64_t rounds_per_epoch = std::uint64_t(epoch_length(t)) + 1;
  const bool quantize_snapshot = a.quantize_snapshot;
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i));
  if (a.collective == "parameter-server")
    spawn_mean_server(engine, t, [=](std::uint64_t r) {
      return r % rounds_per_epoch == 0 ? RoundFormat{!quantize_snapshot, kSnapshotStream}
                                       : RoundFormat{false, kInnerStream};
    });
}

}  // namespace dlsim::sim
