// Speed of the convolutional models (issue 11): GFLOP/s of LeNet-5 batch gradients
// (forward + backward, FLOPs as ConvNet::gradient_cost counts them) in float and double,
// next to the machine's Eigen GEMM rate for the shapes the network multiplies (conv1,
// conv2 forward/∇W/∇input, fc1) and a square 512³ GEMM (the practical peak).
// Target: one epoch of 60,000 images forward + backward in <= 15 s on one core, i.e. the
// `epoch_s` counter of BM_lenet5 at batch 32 or 64.
//   taskset -c 0 build/bin/cnn_bench --benchmark_counters_tabular=true
// Random images of the real shape are used (no data set needed).
#include <benchmark/benchmark.h>

#include <chrono>
#include <numeric>
#include <random>
#include <vector>

#include "models/objectives/cnn/conv_net.hpp"

namespace {

using namespace dlsim::models;

constexpr Index kRows = 4096;

const Dataset& images() {
  static const Dataset d = [] {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> pixel(0.0, 1.0);
    std::uniform_int_distribution<int> label(0, 9);
    Dataset out;
    out.features.owned().resize(kRows, 784);
    for (Index i = 0; i < kRows; ++i)
      for (Index k = 0; k < 784; ++k) out.features.owned()(i, k) = pixel(rng);
    out.labels.resize(kRows);
    for (Index i = 0; i < kRows; ++i) out.labels(i) = label(rng);
    out.classes = 10;
    return out;
  }();
  return d;
}

void run_network(benchmark::State& state, const ConvNet& f) {
  const Index batch = state.range(0);
  std::vector<Index> order(kRows);
  std::iota(order.begin(), order.end(), Index(0));
  std::mt19937_64 rng(2);
  std::shuffle(order.begin(), order.end(), rng);
  const Vector w = f.initial_point(rng);
  Vector grad;
  Index start = 0;
  const auto begin = std::chrono::steady_clock::now();
  for (auto _ : state) {
    if (start + batch > kRows) start = 0;
    f.gradient(w, images(), std::span<const Index>(order.data() + start, std::size_t(batch)), grad);
    benchmark::DoNotOptimize(grad.data());
    start += batch;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  const double flops = f.gradient_cost(batch).flops;
  state.counters["GFLOP/s"] =
      benchmark::Counter(flops * 1e-9 * double(state.iterations()), benchmark::Counter::kIsRate);
  // Wall seconds per epoch of 60,000 images: (60000 / batch) gradients.
  state.counters["epoch_s"] = seconds / double(state.iterations()) * 60000.0 / double(batch);
}

void BM_lenet5_float(benchmark::State& state) {
  static const ConvNet f({}, {}, {.kind = InitOptions::Kind::he}, Precision::single);
  run_network(state, f);
}
BENCHMARK(BM_lenet5_float)->Arg(16)->Arg(32)->Arg(64)->Arg(128)->Unit(benchmark::kMillisecond);

void BM_lenet5_double(benchmark::State& state) {
  static const ConvNet f({}, {}, {.kind = InitOptions::Kind::he}, Precision::double_);
  run_network(state, f);
}
BENCHMARK(BM_lenet5_double)->Arg(32)->Arg(64)->Unit(benchmark::kMillisecond);

void BM_resnet20_float(benchmark::State& state) {
  cnn::Architecture a;
  a.kind = cnn::Architecture::Kind::resnet;
  a.depth = 20;
  static const ConvNet f(a, {}, {.kind = InitOptions::Kind::he}, Precision::single);
  run_network(state, f);
}
BENCHMARK(BM_resnet20_float)->Arg(32)->Unit(benchmark::kMillisecond);

// C (m × n) = A (m × k) · B (k × n), the GEMM alone.
template <class T>
void BM_gemm(benchmark::State& state) {
  using M = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  const Index m = state.range(0), k = state.range(1), n = state.range(2);
  const M a = M::Random(m, k), b = M::Random(k, n);
  M c(m, n);
  for (auto _ : state) {
    c.noalias() = a * b;
    benchmark::DoNotOptimize(c.data());
  }
  state.counters["GFLOP/s"] = benchmark::Counter(
      2.0 * double(m * k * n) * double(state.iterations()), benchmark::Counter::kIsRate);
  state.counters["GFLOP/s"].value *= 1e-9;
}
// Shapes at batch 32: conv1 (25088 × 25 · 25 × 6), conv2 (3200 × 150 · 150 × 16), conv2 ∇W
// (150 × 3200 · 3200 × 16), conv2 ∇cols (3200 × 16 · 16 × 150), fc1 (32 × 400 · 400 × 120),
// and a square 512³ GEMM.
#define GEMM_SHAPES           \
  ->Args({25088, 25, 6})      \
      ->Args({3200, 150, 16}) \
      ->Args({150, 3200, 16}) \
      ->Args({3200, 16, 150}) \
      ->Args({32, 400, 120})  \
      ->Args({512, 512, 512})
BENCHMARK_TEMPLATE(BM_gemm, float) GEMM_SHAPES;
BENCHMARK_TEMPLATE(BM_gemm, double) GEMM_SHAPES;

}  // namespace

BENCHMARK_MAIN();
