// GFLOP/s of batch gradients (forward + backward, FLOPs as the objective reports them)
// for softmax regression and a 784-128-10 MLP on Fashion-MNIST shapes, at batch 32 and
// 256, next to the machine's measured peak: a plain Eigen GEMM of the same shapes (the
// products the gradient performs, without anything else). Target (issue 4): the
// gradient reaches >= 50% of that peak at batch 256.
//   build/bin/gradient_bench --benchmark_counters_tabular=true
// BM_Evaluation times a full-data evaluation with float64, float32 and byte-coded storage:
//   build/bin/gradient_bench --benchmark_filter=Evaluation --benchmark_repetitions=3
// BM_CodedRowsTimes times the byte-code product with each kernel (set 0 baseline, 1 AVX2,
// 2 AVX-512):
//   build/bin/gradient_bench --benchmark_filter=CodedRowsTimes --benchmark_repetitions=5
// BM_DenseProduct times the dense layers' product x·W (1,024 rows, an evaluation's block) by
// Eigen's SSE2 GEMM or the AVX-512 kernel that keeps its bits:
//   build/bin/gradient_bench --benchmark_filter=DenseProduct --benchmark_repetitions=5
// Random data of the real shape (784 features, 10 classes) is used, so the benchmark
// does not need the data set installed; the math does not depend on the values.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "models/cpu/dense_product.hpp"
#include "models/cpu/instruction_set.hpp"
#include "models/data/coded_rows.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"

namespace {

using namespace dlsim::models;

constexpr Index kFeatures = 784;
constexpr int kClasses = 10;
constexpr Index kHidden = 128;
constexpr Index kRows = 8192;

const Dataset& data() {
  static const Dataset d = [] {
    std::mt19937_64 rng(1);
    std::uniform_real_distribution<double> pixel(0.0, 1.0);
    std::uniform_int_distribution<int> label(0, kClasses - 1);
    Dataset out;
    out.features.owned().resize(kRows, kFeatures);
    for (Index i = 0; i < kRows; ++i)
      for (Index k = 0; k < kFeatures; ++k) out.features.owned()(i, k) = pixel(rng);
    out.labels.resize(kRows);
    for (Index i = 0; i < kRows; ++i) out.labels(i) = label(rng);
    out.classes = kClasses;
    return out;
  }();
  return d;
}

// Random batches of `batch` distinct rows (as a worker's sampler would give).
std::vector<std::vector<Index>> batches(Index batch) {
  std::vector<Index> order(kRows);
  std::iota(order.begin(), order.end(), Index(0));
  std::mt19937_64 rng(2);
  std::shuffle(order.begin(), order.end(), rng);
  std::vector<std::vector<Index>> out;
  for (Index start = 0; start + batch <= kRows; start += batch)
    out.emplace_back(order.begin() + start, order.begin() + start + batch);
  return out;
}

void run_gradient(benchmark::State& state, const Objective& f) {
  const Index batch = state.range(0);
  const auto all = batches(batch);
  std::mt19937_64 rng(3);
  const Vector w = f.initial_point(rng);
  Vector grad;
  std::size_t next = 0;
  for (auto _ : state) {
    f.gradient(w, data(), all[next++ % all.size()], grad);
    benchmark::DoNotOptimize(grad.data());
  }
  state.counters["GFLOPS"] = benchmark::Counter(f.gradient_cost(batch).flops * 1e-9,
                                                benchmark::Counter::kIsIterationInvariantRate);
}

void BM_SoftmaxGradient(benchmark::State& state) {
  const Softmax f(kFeatures, kClasses, {.l2 = 1e-4, .l1 = 0}, true, {});
  run_gradient(state, f);
}

void BM_MlpGradient(benchmark::State& state) {
  const Mlp f(kFeatures, {kHidden}, kClasses, Activation::relu, {.l2 = 1e-4, .l1 = 0}, true,
              {.kind = InitOptions::Kind::he});
  run_gradient(state, f);
}

// The peak: the GEMMs of one gradient of a dense layer stack, alone. For each layer
// n → m at batch b: Z = X W (b×n · n×m) and ∇W = Xᵀ G (n×b · b×m), and below the top
// layer G Wᵀ (b×m · m×n); 2bnm FLOPs each. Operands have the objective's storage orders.
void run_gemm(benchmark::State& state, const std::vector<Index>& widths) {
  const Index b = state.range(0);
  Matrix x = Matrix::Random(b, widths[0]);
  std::vector<Eigen::MatrixXd> w;
  std::vector<Matrix> z, g, below;
  std::vector<Eigen::MatrixXd> grad;
  double flops = 0;
  for (std::size_t l = 0; l + 1 < widths.size(); ++l) {
    const Index n = widths[l], m = widths[l + 1];
    w.push_back(Eigen::MatrixXd::Random(n, m));
    z.push_back(Matrix(b, m));
    g.push_back(Matrix::Random(b, m));
    below.push_back(Matrix(b, n));
    grad.push_back(Eigen::MatrixXd(n, m));
    flops += 4.0 * double(b * n * m) + (l > 0 ? 2.0 * double(b * n * m) : 0.0);
  }
  for (auto _ : state) {
    for (std::size_t l = 0; l < w.size(); ++l) {
      z[l].noalias() = (l == 0 ? x : z[l - 1]) * w[l];
      grad[l].noalias() = (l == 0 ? x : z[l - 1]).transpose() * g[l];
      if (l > 0) below[l].noalias() = g[l] * w[l].transpose();
    }
    benchmark::DoNotOptimize(grad.back().data());
  }
  state.counters["GFLOPS"] =
      benchmark::Counter(flops * 1e-9, benchmark::Counter::kIsIterationInvariantRate);
}

void BM_GemmSoftmaxShape(benchmark::State& state) {
  run_gemm(state, {kFeatures, kClasses});
}
void BM_GemmMlpShape(benchmark::State& state) {
  run_gemm(state, {kFeatures, kHidden, kClasses});
}

}  // namespace

// The small-model hot path (issue 18, benchmark case f): binary logistic regression,
// d = 785 with the bias, batch 1, one random row per gradient out of `rows` (range(0)):
// 1,024 rows (6.4 MB, cache-resident) against 60,000 (376 MB, Fashion-MNIST's training
// set: every row comes from memory), to tell the gradient's own cost from the row fetch.
void BM_LogisticBatch1(benchmark::State& state) {
  const Index rows = state.range(0);
  static std::vector<Dataset> sets;  // built once per size
  Dataset* d = nullptr;
  for (Dataset& s : sets)
    if (s.size() == rows) d = &s;
  if (d == nullptr) {
    std::mt19937_64 rng(4);
    std::uniform_real_distribution<double> pixel(0.0, 1.0);
    Dataset out;
    out.features.owned().resize(rows, kFeatures);
    for (Index i = 0; i < rows; ++i)
      for (Index k = 0; k < kFeatures; ++k) out.features.owned()(i, k) = pixel(rng);
    out.labels = Vector::NullaryExpr(rows, [&](Index) { return double(rng() % 2); });
    out.classes = 2;
    sets.push_back(std::move(out));
    d = &sets.back();
  }
  const Logistic f(kFeatures, {.l2 = 1e-4, .l1 = 0}, true, {});
  std::mt19937_64 rng(5);
  const Vector w = f.initial_point(rng);
  std::vector<Index> picks(4096);
  for (Index& p : picks) p = Index(rng() % std::uint64_t(rows));
  Vector grad;
  std::size_t next = 0;
  for (auto _ : state) {
    const Index row = picks[next++ % picks.size()];
    f.gradient(w, *d, std::span<const Index>(&row, 1), grad);
    benchmark::DoNotOptimize(grad.data());
  }
}

// A full-data evaluation as the metrics take it (issue 18, case f's metrics): the data
// sums of Fashion-MNIST-sized data (70,000 x 784, train and test sets together) in the
// 4,096-row chunks the evaluator uses, with the features stored as doubles (range(1) = 0,
// 440 MB read per evaluation), as floats (1, data.storage float32, 220 MB) or as pixel
// codes (2, Fashion-MNIST's default: 55 MB; the values are pixel/255);
// range(0) = 0: logistic (a matrix-vector product per chunk), 1: softmax (10 classes).
// Reported: rows per second, and bytes of features read per second.
void BM_Evaluation(benchmark::State& state) {
  constexpr Index kEvalRows = 70000, kChunk = 4096;
  const bool softmax = state.range(0) == 1;
  const int storage = int(state.range(1));
  static Dataset doubles, floats, coded;
  if (doubles.size() == 0) {
    std::mt19937_64 rng(6);
    ByteBuffer codes(std::size_t(kEvalRows * kFeatures));
    for (auto& c : codes) c = std::uint8_t(rng() % 256);
    std::array<double, 256> pixel;
    for (std::size_t c = 0; c < pixel.size(); ++c) pixel[c] = double(c) / 255.0;
    doubles.features.owned().resize(kEvalRows, kFeatures);
    for (Index i = 0; i < kEvalRows; ++i)
      for (Index k = 0; k < kFeatures; ++k)
        doubles.features.owned()(i, k) = pixel[codes[std::size_t(i * kFeatures + k)]];
    doubles.labels = Vector::NullaryExpr(kEvalRows, [&](Index) { return double(rng() % 2); });
    doubles.classes = 2;
    floats = doubles;
    floats.features.to_float32();
    coded = doubles;
    coded.features = FeatureMatrix::of_codes(std::move(codes), kEvalRows, kFeatures, pixel);
  }
  const Dataset& d = storage == 2 ? coded : storage == 1 ? floats : doubles;
  const Logistic logistic(kFeatures, {.l2 = 1e-4, .l1 = 0}, true, {});
  const Softmax soft(kFeatures, kClasses, {.l2 = 1e-4, .l1 = 0}, true, {});
  const Objective& f = softmax ? static_cast<const Objective&>(soft) : logistic;
  std::mt19937_64 rng(7);
  const Vector w = f.initial_point(rng) + Vector::Constant(f.dimension(), 0.01);
  for (auto _ : state) {
    double loss = 0;
    for (Index r0 = 0; r0 < kEvalRows; r0 += kChunk)
      loss += f.data_sums(w, d, r0, std::min(kEvalRows, r0 + kChunk))->loss;
    benchmark::DoNotOptimize(loss);
  }
  state.SetItemsProcessed(state.iterations() * kEvalRows);
  state.SetBytesProcessed(state.iterations() * kEvalRows * kFeatures * d.features.value_bytes());
}

// The byte-code product of a full-data logistic evaluation (case f's metrics with the
// default float64 storage, kept as pixel codes): 70,000 x 784 codes, a quarter of them
// zero, times a model, by the portable kernel (range(0) = 0: one table lookup a value),
// the AVX2 one (1: values computed from codes, two rows a register) or the AVX-512 one (2:
// four rows a register). Reported: rows per second, and code bytes read per second.
void BM_CodedRowsTimes(benchmark::State& state) {
  namespace detail = dlsim::models::coded_rows_detail;
  using dlsim::models::InstructionSet;
  constexpr Index kEvalRows = 70000;
  const auto set = InstructionSet(state.range(0));
  if (set > dlsim::models::best_instruction_set()) {
    state.SkipWithError("this processor does not run that instruction set");
    return;
  }
  static std::vector<std::uint8_t> codes;
  static std::array<double, 256> values;
  if (codes.empty()) {
    std::mt19937_64 rng(8);
    codes.resize(std::size_t(kEvalRows * kFeatures));
    for (auto& c : codes) c = rng() % 4 == 0 ? 0 : std::uint8_t(rng() % 256);
    for (std::size_t c = 0; c < values.size(); ++c) values[c] = double(c) / 255.0;
  }
  const dlsim::models::CodeTable table(values);
  std::mt19937_64 rng(9);
  const Vector w =
      Vector::NullaryExpr(kFeatures, [&](Index) { return double(rng() % 100) / 50 - 1; });
  Vector z(kEvalRows);
  const auto kernel = set == InstructionSet::avx512 ? detail::rows_times_avx512
                      : set == InstructionSet::avx2 ? detail::rows_times_avx2
                                                    : detail::rows_times_portable;
  for (auto _ : state) {
    kernel(codes.data(), kEvalRows, kFeatures, table, w.data(), z.data());
    benchmark::DoNotOptimize(z.data());
  }
  state.SetItemsProcessed(state.iterations() * kEvalRows);
  state.SetBytesProcessed(state.iterations() * kEvalRows * kFeatures);
}

// x·W for range(3) rows of x (1,024: an evaluation's block; 16: a batch) of depth range(1)
// and W of range(2) columns: softmax's logits (784, 10) and an MLP's layers (784, 128 and
// 128, 10), by Eigen's product (range(0) = 0) or the AVX-512 kernel (1). Reported:
// multiply-adds per second.
void BM_DenseProduct(benchmark::State& state) {
  const bool avx512 = state.range(0) == 1;
  const Index depth = state.range(1), cols = state.range(2), kBlockRows = state.range(3);
  if (avx512 && !dlsim::models::avx512_available()) {
    state.SkipWithError("no AVX-512 on this processor");
    return;
  }
  std::mt19937_64 rng(10);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  Matrix x(kBlockRows, depth);
  for (Index i = 0; i < x.size(); ++i) x.data()[i] = value(rng);
  std::vector<double> w(std::size_t(depth * cols));
  for (double& v : w) v = value(rng);
  Matrix out;
  for (auto _ : state) {
    dlsim::models::dense_product::multiply(x, w.data(), cols, out, avx512);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kBlockRows * depth * cols);
}

BENCHMARK(BM_SoftmaxGradient)->Arg(32)->Arg(256);
BENCHMARK(BM_GemmSoftmaxShape)->Arg(32)->Arg(256);
BENCHMARK(BM_MlpGradient)->Arg(32)->Arg(256);
BENCHMARK(BM_GemmMlpShape)->Arg(32)->Arg(256);
BENCHMARK(BM_LogisticBatch1)->Arg(1024)->Arg(60000)->Unit(benchmark::kNanosecond);
BENCHMARK(BM_Evaluation)
    ->ArgsProduct({{0, 1}, {0, 1, 2}})
    ->ArgNames({"softmax", "storage"})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CodedRowsTimes)->ArgName("set")->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_DenseProduct)
    ->ArgsProduct({{0, 1}, {784}, {10, 128}, {16, 1024}})
    ->ArgsProduct({{0, 1}, {128}, {10}, {16, 1024}})
    ->ArgNames({"avx512", "depth", "cols", "rows"})
    ->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
