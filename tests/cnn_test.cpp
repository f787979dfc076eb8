// LeNet-5 and ResNet objectives (models/objectives/cnn) against independent truth:
// whole-network gradients versus central finite differences in double (directional
// derivatives along random directions plus sampled coordinates of every tensor),
// parameter counts versus the closed formulas, the LeNet-5 FLOP count versus a hand
// count, float versus double, seeded initialization, and the scenario path (keys,
// defaults, prepare, a short run that learns).
#include <catch2/catch.hpp>

#include <cmath>

#include "init_helpers.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "objective_helpers.hpp"
#include "run_helpers.hpp"
#include "sim/scenario/load.hpp"

using namespace dlsim::models;
using namespace dlsim::test;
using cnn::Architecture;
using nlohmann::json;

namespace {

Architecture lenet5(Activation activation = Activation::relu,
                    cnn::PoolKind pooling = cnn::PoolKind::max) {
  Architecture a;
  a.activation = activation;
  a.pooling = pooling;
  return a;
}

Architecture resnet(int depth, double width, cnn::Shape input = {1, 28, 28}) {
  Architecture a;
  a.kind = Architecture::Kind::resnet;
  a.depth = depth;
  a.width = width;
  a.input = input;
  return a;
}

// Images in [0, 1] of the given size with labels in 0..classes−1.
Dataset image_data(Index n, Index pixels, int classes, std::uint64_t seed) {
  Dataset data = classification_data(n, pixels, classes, seed);
  data.features = (data.features.view().array() * 0.3 + 0.5).cwiseMax(0.0).cwiseMin(1.0).matrix();
  return data;
}

// Central differences along `v` and at sampled coordinates (every tensor gets some).
void check_gradient(const ConvNet& f, const Vector& w, const Dataset& data, double tolerance) {
  Vector grad;
  f.gradient(w, data, all_rows(data.size()), grad);
  REQUIRE(grad.size() == f.dimension());
  const double h = 1e-5;
  for (std::uint64_t seed : {1, 2, 3}) {
    const Vector v = random_vector(w.size(), 100 + seed).normalized();
    const double numeric = (f.loss(w + h * v, data) - f.loss(w - h * v, data)) / (2 * h);
    INFO("direction " << seed);
    CHECK(numeric == Approx(grad.dot(v)).epsilon(tolerance));
  }
  std::mt19937_64 rng(7);
  Index offset = 0;
  Vector analytic(0), numeric(0);
  for (const Index size : f.tensor_sizes()) {
    std::uniform_int_distribution<Index> pick(offset, offset + size - 1);
    for (int k = 0; k < 6; ++k) {
      const Index i = pick(rng);
      Vector plus = w, minus = w;
      plus(i) += h;
      minus(i) -= h;
      analytic.conservativeResize(analytic.size() + 1);
      numeric.conservativeResize(numeric.size() + 1);
      analytic(analytic.size() - 1) = grad(i);
      numeric(numeric.size() - 1) = (f.loss(plus, data) - f.loss(minus, data)) / (2 * h);
    }
    offset += size;
  }
  CHECK(relative_error(analytic, numeric) < tolerance);
}

}  // namespace

TEST_CASE("lenet5: parameter count and tensor layout match the formula") {
  const ConvNet f(lenet5(), {}, {.kind = InitOptions::Kind::he}, Precision::double_);
  CHECK(f.dimension() == 61706);
  CHECK(f.dimension() == 156 + 2416 + 48120 + 10164 + 850);
  CHECK(f.tensor_sizes() == std::vector<Index>{150, 6, 2400, 16, 48000, 120, 10080, 84, 840, 10});
  Architecture three = lenet5();
  three.classes = 3;
  CHECK(ConvNet(three, {}, {}, Precision::single).dimension() ==
        (25 + 1) * 6 + (150 + 1) * 16 + (400 + 1) * 120 + (120 + 1) * 84 + (84 + 1) * 3);
}

TEST_CASE("resnet: parameter count matches the formula; depth must be 6n + 2") {
  for (const int depth : {8, 14, 20, 32})
    for (const double width : {0.5, 1.0, 1.5}) {
      const Index n = (depth - 2) / 6;
      const Index c1 = std::lround(16 * width), c2 = std::lround(32 * width),
                  c3 = std::lround(64 * width);
      const auto pair = [](Index c) { return 2 * (9 * c * c + c); };
      const auto down = [](Index a, Index b) {
        return (9 * a * b + b) + (9 * b * b + b) + (a * b + b);
      };
      const Index expected = (9 + 1) * c1 + n * pair(c1) + down(c1, c2) + (n - 1) * pair(c2) +
                             down(c2, c3) + (n - 1) * pair(c3) + (c3 + 1) * 10;
      INFO("depth " << depth << " width " << width);
      CHECK(ConvNet(resnet(depth, width), {}, {}, Precision::single).dimension() == expected);
    }
  // ResNet-20 at width 1 (He et al.: "0.27M"): 271,402 with biases and projections.
  CHECK(ConvNet(resnet(20, 1), {}, {}, Precision::single).dimension() == 271402);
  for (const int bad : {7, 9, 10, 19, 21})
    CHECK_THROWS_AS(ConvNet(resnet(bad, 1), {}, {}, Precision::single), std::invalid_argument);
}

TEST_CASE("lenet5: whole-network gradient matches finite differences (double)") {
  const Dataset data = image_data(3, 784, 10, 5);
  for (const Activation act : {Activation::relu, Activation::tanh})
    for (const cnn::PoolKind pool : {cnn::PoolKind::max, cnn::PoolKind::average}) {
      INFO("tanh " << (act == Activation::tanh) << " average " << (pool == cnn::PoolKind::average));
      const ConvNet f(lenet5(act, pool), {.l2 = 0.01, .l1 = 0}, {.kind = InitOptions::Kind::he},
                      Precision::double_);
      std::mt19937_64 rng(3);
      Vector w = f.initial_point(rng);
      w += random_vector(w.size(), 4, 0.01);  // nonzero biases
      check_gradient(f, w, data, 1e-5);
    }
}

TEST_CASE("resnet: depth-8 gradient matches finite differences (double)") {
  const Dataset data = image_data(2, 64, 4, 6);
  Architecture a = resnet(8, 0.25, {1, 8, 8});
  a.classes = 4;
  const ConvNet f(a, {.l2 = 0.01, .l1 = 0}, {.kind = InitOptions::Kind::he}, Precision::double_);
  std::mt19937_64 rng(3);
  Vector w = f.initial_point(rng);
  w += random_vector(w.size(), 4, 0.05);
  check_gradient(f, w, data, 1e-5);
}

TEST_CASE("lenet5: float gradient agrees with double; batch gradient equals subset gradient") {
  const Dataset data = image_data(8, 784, 10, 8);
  const ConvNet single(lenet5(), {}, {.kind = InitOptions::Kind::he}, Precision::single);
  const ConvNet twice(lenet5(), {}, {.kind = InitOptions::Kind::he}, Precision::double_);
  std::mt19937_64 rng(1);
  const Vector w = twice.initial_point(rng);
  Vector g_single, g_double;
  const std::vector<Index> rows = {5, 1, 5, 7};
  single.gradient(w, data, rows, g_single);
  twice.gradient(w, data, rows, g_double);
  CHECK(relative_error(g_single, g_double) < 1e-4);
  CHECK(single.loss(w, data) == Approx(twice.loss(w, data)).epsilon(1e-5));
  Vector g_subset;
  const Dataset sub = subset(data, rows);
  twice.gradient(w, sub, all_rows(4), g_subset);
  CHECK(relative_error(g_subset, g_double) < 1e-12);
}

TEST_CASE("lenet5: FLOP count matches a hand count") {
  const ConvNet f(lenet5(), {}, {}, Precision::single);
  const double b = 32;
  // forward: conv1, relu, pool, conv2, relu, pool, fc1, relu, fc2, relu, fc3, head
  const double forward = (2 * 784 * 25 * 6 + 784 * 6) + 4704 + 3 * 1176 +
                         (2 * 100 * 150 * 16 + 1600) + 1600 + 3 * 400 + (2 * 400 * 120 + 120) +
                         120 + (2 * 120 * 84 + 84) + 84 + (2 * 84 * 10 + 10);
  const double head = 5 * 10 + 1 + 10;
  // backward from the top; conv1 computes no input gradient
  const double backward = (4 * 84 * 10 + 10) + 2 * 84 + (4 * 120 * 84 + 84) + 2 * 120 +
                          (4 * 400 * 120 + 120) + 3 * 400 + 2 * 1600 +
                          (4 * 100 * 150 * 16 + 1600 + 100 * 150) + 3 * 1176 + 2 * 4704 +
                          (2 * 784 * 25 * 6 + 784 * 6);
  CHECK(f.gradient_cost(32).flops == Approx(b * (forward + head + backward)).epsilon(1e-15));
  CHECK(f.gradient_cost(32).seconds == 0);
  // About 2.32 MFLOP per image: 139 GFLOP per epoch of 60,000 images.
  CHECK(f.gradient_cost(1).flops == Approx(2.321e6).epsilon(0.001));
  const ConvNet l2(lenet5(), {.l2 = 1e-4, .l1 = 0}, {}, Precision::single);
  CHECK(l2.gradient_cost(32).flops - f.gradient_cost(32).flops ==
        2.0 * (150 + 2400 + 48000 + 10080 + 840));
}

TEST_CASE("conv nets: initialization is seeded, He/Xavier scaled, biases zero") {
  const ConvNet f(lenet5(), {}, {.kind = InitOptions::Kind::he}, Precision::single);
  std::mt19937_64 a(42), b(42), c(43);
  const Vector wa = f.initial_point(a), wb = f.initial_point(b), wc = f.initial_point(c);
  CHECK(wa == wb);
  CHECK(wa != wc);
  // fc1 weights: He std sqrt(2/400); its bias is 0.
  const Index fc1 = 156 + 2416;
  const auto weights = wa.segment(fc1, 48000);
  CHECK(std::sqrt(weights.squaredNorm() / 48000) == Approx(std::sqrt(2.0 / 400)).epsilon(0.02));
  CHECK(wa.segment(fc1 + 48000, 120).isZero());
  const ConvNet t(lenet5(Activation::tanh), {}, {.kind = InitOptions::Kind::xavier},
                  Precision::single);
  const Vector wt = t.initial_point(a);
  CHECK(std::sqrt(wt.segment(fc1, 48000).squaredNorm() / 48000) ==
        Approx(std::sqrt(2.0 / 520)).epsilon(0.02));
  // conv2 under Xavier: fans 6·25 and 16·25.
  CHECK(std::sqrt(wt.segment(156, 2400).squaredNorm() / 2400) ==
        Approx(std::sqrt(2.0 / (150 + 400))).epsilon(0.05));
}

TEST_CASE("conv nets: the torch init draws weights and biases on U(+-1/sqrt(fan_in))") {
  const ConvNet f(lenet5(), {}, {.kind = InitOptions::Kind::torch}, Precision::single);
  std::mt19937_64 a(5), b(5);
  const Vector w = f.initial_point(a);
  CHECK(w == f.initial_point(b));
  // LeNet-5 on 1x28x28, tensor by tensor (weights then bias) with the layer's fan-in:
  // conv1 1·5·5, conv2 6·5·5, fc1 16·5·5, fc2 120, fc3 84.
  check_torch_init(w, {{150, 25},
                       {6, 25},
                       {2400, 150},
                       {16, 150},
                       {48000, 400},
                       {120, 400},
                       {10080, 120},
                       {84, 120},
                       {840, 84},
                       {10, 84}});
}

TEST_CASE("conv nets: scenario keys, defaults and prepare") {
  const json base = json::parse(R"({
    "seed": 3, "workers": 2,
    "data": {"source": "synthetic-classification", "samples": 64, "features": 784, "classes": 3},
    "model": {"kind": "lenet5"},
    "algorithm": {"kind": "sgd", "batch_size": 8, "step_size": 0.05},
    "stop": {"iterations": 3}})");
  const json resolved = dlsim::sim::resolve_scenario(base);
  CHECK(resolved["model"]["activation"] == "relu");
  CHECK(resolved["model"]["pooling"] == "max");
  CHECK(resolved["model"]["precision"] == "float");
  CHECK(resolved["model"]["init"]["kind"] == "he");
  json tanh = base;
  tanh["model"]["activation"] = "tanh";
  CHECK(dlsim::sim::resolve_scenario(tanh)["model"]["init"]["kind"] == "xavier");
  const auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(base));
  CHECK(prepared.objective->dimension() ==
        (25 + 1) * 6 + (150 + 1) * 16 + (400 + 1) * 120 + (120 + 1) * 84 + (84 + 1) * 3);
  CHECK(prepared.objective->tensor_sizes().size() == 10);

  json res = base;
  res["model"] = json::parse(R"({"kind": "resnet", "depth": 8, "width": 0.25})");
  const json resolved_res = dlsim::sim::resolve_scenario(res);
  CHECK(resolved_res["model"]["init"]["kind"] == "he");
  const auto prepared_res = dlsim::sim::prepare(dlsim::sim::load_scenario(res));
  Architecture three = resnet(8, 0.25);
  three.classes = 3;
  CHECK(prepared_res.objective->dimension() ==
        ConvNet(three, {}, {}, Precision::single).dimension());

  // `init: {"kind": "torch"}` reaches the model: fc3's bias (the last 3 entries) is drawn.
  json torch = base;
  torch["model"]["init"] = json::parse(R"({"kind": "torch"})");
  const auto prepared_torch = dlsim::sim::prepare(dlsim::sim::load_scenario(torch));
  std::mt19937_64 rng(1);
  const Vector w = prepared_torch.objective->initial_point(rng);
  CHECK(w.tail(3).cwiseAbs().minCoeff() > 0);
  CHECK(w.tail(3).cwiseAbs().maxCoeff() < 1 / std::sqrt(84.0));
}

TEST_CASE("conv nets: a short seeded run on Fashion-MNIST learns and is deterministic") {
  json doc = json::parse(R"({
    "seed": 5, "workers": 2,
    "data": {"source": "fashion-mnist", "train_samples": 1000},
    "model": {"kind": "lenet5"},
    "algorithm": {"kind": "sgd", "batch_size": 16, "step_size": 0.05, "momentum": 0.9},
    "stop": {"iterations": 40},
    "metrics": {"every": {"iterations": 40}, "test": false}})");
  const auto first = run_scenario(doc, "cnn-a");
  const auto second = run_scenario(doc, "cnn-b");
  const auto strip_wall = [](const std::string& csv) {
    std::string out;
    std::istringstream in(csv);
    for (std::string line; std::getline(in, line);) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  CHECK(strip_wall(first.metrics_csv) == strip_wall(second.metrics_csv));
  // From about log 10 = 2.30 at the start.
  CHECK(first.summary["final"]["train_loss"].get<double>() < 1.3);
}

namespace {

Architecture resnet20_cifar(Index groups = 0) {
  Architecture a = resnet(20, 1, {3, 32, 32});
  a.shortcut = cnn::Shortcut::zero_pad;
  a.groups = groups;
  return a;
}

}  // namespace

TEST_CASE("resnet-20 on CIFAR (He et al. 2016 section 4.2): parameters counted by hand") {
  // Option A (zero-padding shortcuts: no parameters), 3x32x32 input, 10 classes, every
  // convolution with a bias (dlsim's convention), no normalization:
  //   stem    3->16, 3x3:            27*16 + 16                      =     448
  //   stage 1 6 convs 16->16:        6 * (144*16 + 16)               =  13,920
  //   stage 2 16->32, then 5x 32->32: (144*32 + 32) + 5*(288*32 + 32) =  50,880
  //   stage 3 32->64, then 5x 64->64: (288*64 + 64) + 5*(576*64 + 64) = 203,136
  //   dense   64->10:                64*10 + 10                      =     650
  //                                                            total   269,034
  // (the paper: "0.27M"; without the 688 convolution biases 268,346).
  const ConvNet plain(resnet20_cifar(), {}, {}, Precision::single);
  CHECK(plain.dimension() == 448 + 13920 + 50880 + 203136 + 650);
  CHECK(plain.dimension() == 269034);
  // 20 layers with weights (6n + 2, n = 3): 19 convolutions and the dense layer.
  Index weighted = 0;
  for (const auto& t : plain.network().tensors()) weighted += t.weight ? 1 : 0;
  CHECK(weighted == 20);
  // Group normalization adds gamma and beta per output channel of every convolution:
  // 16 + 6*16 + 6*32 + 6*64 = 688 channels, 1,376 parameters.
  const ConvNet grouped(resnet20_cifar(8), {}, {}, Precision::single);
  CHECK(grouped.dimension() == 269034 + 2 * 688);
  // Option B adds the two 1x1 projections: (16*32 + 32) + (32*64 + 64).
  Architecture projection = resnet20_cifar();
  projection.shortcut = cnn::Shortcut::projection;
  CHECK(ConvNet(projection, {}, {}, Precision::single).dimension() == 269034 + 544 + 2112);
}

TEST_CASE("resnet-20 on CIFAR: forward FLOPs match a hand count (about 41M multiply-adds)") {
  // conv: 2·N·K·Cout + N·Cout for N output pixels and K = Cin·9 taps (conv2d.hpp).
  const auto conv = [](double n, double k, double cout) { return 2 * n * k * cout + n * cout; };
  // A block: its two convolutions, relu of A, the sum Z, relu of Y; option A's sum adds
  // only the Cin subsampled input channels.
  const double stage1 = 2 * conv(1024, 144, 16) + 3 * 16 * 1024;
  const double stage2_first =
      conv(256, 144, 32) + conv(256, 288, 32) + 32 * 256 + 16 * 256 + 32 * 256;
  const double stage2 = 2 * conv(256, 288, 32) + 3 * 32 * 256;
  const double stage3_first = conv(64, 288, 64) + conv(64, 576, 64) + 64 * 64 + 32 * 64 + 64 * 64;
  const double stage3 = 2 * conv(64, 576, 64) + 3 * 64 * 64;
  const double expected = conv(1024, 27, 16) + 16 * 1024 + 3 * stage1 + stage2_first + 2 * stage2 +
                          stage3_first + 2 * stage3 + 64 * 64 + (2 * 64 * 10 + 10);
  const ConvNet f(resnet20_cifar(), {}, {}, Precision::single);
  CHECK(f.network().forward_flops(1) == expected);
  CHECK(f.network().forward_flops(8) == 8 * expected);
  // The multiply-adds alone: 40,551,040.
  const double macs = 1024 * 27 * 16 + 6 * 1024 * 144 * 16 + 256 * 144 * 32 + 5 * 256 * 288 * 32 +
                      64 * 288 * 64 + 5 * 64 * 576 * 64 + 640;
  CHECK(macs == 40551040);
  CHECK(expected == Approx(2 * macs).epsilon(0.01));
  // Group normalization: 7 per value + 3 per group forward, for each of the 19 outputs.
  const ConvNet grouped(resnet20_cifar(8), {}, {}, Precision::single);
  const double values = 16 * 1024 + 6 * 16 * 1024 + 6 * 32 * 256 + 6 * 64 * 64;
  CHECK(grouped.network().forward_flops(1) == expected + 7 * values + 3 * 8 * 19);
}

TEST_CASE("resnet: option A and group normalization, whole-network gradient on 3x8x6 images") {
  const Dataset data = image_data(3, 3 * 8 * 6, 4, 16);
  for (const Index groups : {0, 2})
    for (const auto shortcut : {cnn::Shortcut::zero_pad, cnn::Shortcut::projection}) {
      INFO("groups " << groups << " zero_pad " << (shortcut == cnn::Shortcut::zero_pad));
      Architecture a = resnet(8, 0.25, {3, 8, 6});
      a.classes = 4;
      a.shortcut = shortcut;
      a.groups = groups;
      const ConvNet f(a, {.l2 = 0.01, .l1 = 0}, {.kind = InitOptions::Kind::he},
                      Precision::double_);
      std::mt19937_64 rng(3);
      Vector w = f.initial_point(rng);
      w += random_vector(w.size(), 4, 0.05);
      check_gradient(f, w, data, 1e-5);
    }
}

TEST_CASE("resnet: group normalization scales start at 1, shifts at 0, and are not regularized") {
  Architecture a = resnet(8, 0.25, {3, 8, 8});
  a.groups = 2;
  const ConvNet f(a, {.l2 = 1.0, .l1 = 0}, {.kind = InitOptions::Kind::he}, Precision::double_);
  std::mt19937_64 rng(1);
  const Vector w = f.initial_point(rng);
  // Stem: conv 3->4 (W 108, b 4), then gamma (4), beta (4).
  CHECK(f.tensor_sizes()[0] == 108);
  CHECK(w.segment(112, 4) == Vector::Ones(4));
  CHECK(w.segment(116, 4).isZero());
  Vector only_norm = Vector::Zero(w.size());
  only_norm.segment(112, 8) = w.segment(112, 8);
  CHECK(f.regularizer(only_norm) == 0.0);
}

TEST_CASE("conv nets: the image shape comes from the data (cifar-like 3x32x32 via image_shape)") {
  json doc = json::parse(R"({
    "seed": 3, "workers": 1,
    "data": {"source": "synthetic-classification", "samples": 16, "features": 3072, "classes": 10,
             "image_shape": [3, 32, 32]},
    "model": {"kind": "resnet", "depth": 8, "width": 0.25, "shortcut": "zero_pad"},
    "algorithm": {"kind": "sgd", "batch_size": 4, "step_size": 0.05},
    "stop": {"iterations": 2}})");
  const auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  Architecture a = resnet(8, 0.25, {3, 32, 32});
  a.shortcut = cnn::Shortcut::zero_pad;
  CHECK(prepared.objective->dimension() == ConvNet(a, {}, {}, Precision::single).dimension());
  doc["model"] = json::parse(R"({"kind": "lenet5"})");
  // LeNet-5 on 3x32x32: conv 3->6 5x5 pad 2 (32x32), pool (16), conv 6->16 5x5 (12x12),
  // pool (6x6), dense 576 -> 120 -> 84 -> 10.
  CHECK(dlsim::sim::prepare(dlsim::sim::load_scenario(doc)).objective->dimension() ==
        (75 + 1) * 6 + (150 + 1) * 16 + (576 + 1) * 120 + (120 + 1) * 84 + (84 + 1) * 10);
}
