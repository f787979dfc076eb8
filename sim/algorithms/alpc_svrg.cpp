// ALPC-SVRG: Katyusha momentum over LPC-SVRG's messages (docs/algorithms.md §2).
//   Yu, Wu, Huang, "Exploring Fast and Communication-Efficient Algorithms in Large-scale
//   Distributed Networks", AISTATS 2019, arXiv:1901.08924.
//   @inproceedings{yu2019lpcsvrg, author = {Yu, Yue and Wu, Jiaxiang and Huang, Junzhou},
//     title = {Exploring Fast and Communication-Efficient Algorithms in Large-scale
//     Distributed Networks}, booktitle = {AISTATS}, year = {2019}}
//   Allen-Zhu, "Katyusha: The First Direct Acceleration of Stochastic Gradient Methods",
//   STOC 2017 / JMLR 18(221), 2018.  @article{allenzhu2017katyusha}
//
// Constants: m = epoch_length (default Katyusha's m = 2n for n component functions and
// batch 1, m = 2N/b for a total batch b: here b = workers · batch_size, so m =
// ⌊2N/(workers · batch_size)⌋, two passes over every shard), τ2 = 1/2, τ1 = min(√(mσ/(3L)), 1/2), α
// = 1/(3τ1L); L and σ from algorithm.L / algorithm.sigma, else estimated (smoothness.hpp; σ = l2).
// y₀ = z₀ = ỹ = x₀. Epoch: μ = (1/n) Σ_i ∇f_i(ỹ) (whole shards, fp32 unless
// quantize_snapshot); inner step k (j = k mod m):
//   x_{k+1} = τ1 z_k + τ2 ỹ + (1 − τ1 − τ2) y_k
//   ∇̃ = μ + (1/n) Σ_i C(∇f_i(x_{k+1}; B) − ∇f_i(ỹ; B))
//   z_{k+1} = prox_{αR}(z_k − α∇̃)
//   option I:  y_{k+1} = prox_{R/(3L)}(x_{k+1} − ∇̃'/(3L))
//   option II: y_{k+1} = x_{k+1} + τ1(z_{k+1} − z_k)
//   end of epoch: ỹ ← Σ_j (1+ασ)^j y_{j+1} / Σ_j (1+ασ)^j.
// ∇̃' = ∇̃, or with `double_sampling` μ + (1/n) Σ_i C'(same difference): a second,
// independent encoding (stream 1, its own rounding draws, a second exchange round) of
// every worker's message, so the z- and y-steps see independent quantization noise.
// Every worker keeps the same replicas of x, y, z, ỹ and μ (svrg_common.hpp: the
// collective); the metrics evaluate y_{k+1}, worker 0's replica. The snapshot and first
// messages are encoded in the worker's compute jobs, the second sample's on the engine
// thread after the first round (no compute in between).
#include <algorithm>
#include <cmath>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/smoothness.hpp"
#include "sim/algorithms/svrg_common.hpp"
#include "sim/algorithms/svrg_keys.hpp"

namespace dlsim::sim {

namespace {

// Katyusha's epoch length m = 2n (Allen-Zhu 2017, Alg. 1 and §5 for mini-batches: m = 2n/b)
// is two passes over the data: two passes over every shard here.
constexpr std::int64_t kKatyushaShardPasses = 2;

// Compressor streams (each its own state and random stream): the inner gradient, its
// double-sampling second draw, the snapshot gradient.
struct AlpcStreams {
  static constexpr int first = 0, second = 1, snapshot = 2;
};

struct Katyusha {
  double L = 1, sigma = 0, tau1 = 0.5, tau2 = 0.5, alpha = 1;
};

Katyusha constants(const Training& t, std::int64_t m) {
  const SvrgFamilyOptions& o = t.scenario.algorithm.options_as<SvrgFamilyOptions>();
  Katyusha c;
  if (!t.objective.has_math()) return c;  // profile: timing only
  c.sigma = o.sigma ? *o.sigma : t.scenario.model.options->regularization().l2;
  c.L = o.L ? *o.L : estimate_smoothness(t.objective, *t.train);
  c.tau1 = std::min(std::sqrt(double(m) * c.sigma / (3 * c.L)), 0.5);
  c.alpha = 1 / (3 * c.tau1 * c.L);
  return c;
}

// What the processes read of algorithm.*, read once in launch_alpc_svrg().
struct AlpcOptions {
  Katyusha c;
  bool option_one = true;
  bool double_sampling = false;
  RoundFormat snapshot_format;
  std::int64_t epoch = 1;  // m
  std::int64_t batch_size = 0;
};

Task<void> worker(Training& t, std::shared_ptr<Collective> collective, int id,
                  std::shared_ptr<const AlpcOptions> options) {
  const AlpcOptions& o = *options;
  const Katyusha& c = o.c;
  const std::int64_t m = o.epoch;
  Node& me = t.nodes[std::size_t(id)];
  WorkerMath math(t, id);
  const std::unique_ptr<Endpoint> ep = collective->join(id, math);
  BatchDifference difference(t, id, o.batch_size);
  const models::Objective& f = t.objective;

  const models::Vector& x0 = t.shared_start_for(id);  // empty on another rank's worker
  models::Vector y = x0, z = x0, snapshot = x0, x, mu, g_snapshot, d, mean, second, gradient,
                 z_next;
  models::Vector weighted_y = models::Vector::Zero(y.size());
  double weight_sum = 0, weight = 1;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    if (k % m == 0) {  // new epoch: snapshot and its full gradient
      if (k > 0) {
        const ScopedWall timer = t.wall.time_math();
        snapshot = weighted_y / weight_sum;
      }
      weighted_y.setZero();
      weight_sum = 0;
      weight = 1;
      co_await me.compute([&] {  // this worker's own state only (node.hpp)
        full_gradient(t, id, snapshot, g_snapshot);
        ep->contribute(g_snapshot, o.snapshot_format);
        return full_gradient_cost(t, id, o.batch_size, m);
      });
      co_await ep->exchange();
      ep->result(mu);
    }
    co_await me.compute([&] {
      x = c.tau1 * z + c.tau2 * snapshot + (1 - c.tau1 - c.tau2) * y;
      const models::ComputeCost cost = difference(x, snapshot, d);
      ep->contribute(d, {false, AlpcStreams::first});
      return cost;
    });
    co_await ep->exchange();
    ep->result(mean);
    if (o.double_sampling) co_await ep->mean(d, {false, AlpcStreams::second}, second);
    if (t.local(id)) {  // another rank's worker holds no replica (prox needs one)
      const ScopedWall timer = t.wall.time_math();
      gradient = mu + mean;
      z_next = z - c.alpha * gradient;
      f.prox(z_next, c.alpha);
      if (o.option_one) {
        if (o.double_sampling) gradient = mu + second;
        y = x - gradient / (3 * c.L);
        f.prox(y, 1 / (3 * c.L));
      } else {
        y = x + c.tau1 * (z_next - z);
      }
      z = z_next;
      weighted_y += weight * y;
      weight_sum += weight;
      weight *= 1 + c.alpha * c.sigma;
    }
    if (id == 0) t.recorder.deposit(0, k + 1, y);
  }
}

}  // namespace

void launch_alpc_svrg(Engine& engine, Training& t) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const SvrgFamilyOptions& family = a.options_as<SvrgFamilyOptions>();
  AlpcOptions o;
  o.epoch = epoch_length(t, kKatyushaShardPasses);
  o.c = constants(t, o.epoch);
  o.option_one = family.option_one;
  o.double_sampling = family.double_sampling;
  o.snapshot_format = {!family.quantize_snapshot, AlpcStreams::snapshot};
  o.batch_size = a.batch_size;
  const auto options = std::make_shared<const AlpcOptions>(o);
  const auto collective = svrg_collective(t, a.collective, family.downlink);
  for (int i = 0; i < collective->workers_to_simulate(); ++i)
    engine.spawn(worker(t, collective, i, options));
  collective->launch(engine);  // the server, if any, after the workers
}

}  // namespace dlsim::sim
