// `model.kind: "cnn"` (models/objectives/cnn/layer_list.hpp) against independent truth:
// a layer list equal to LeNet-5 is LeNet-5 (parameter count 61,706, tensor layout, FLOPs,
// seeded initialization, loss and gradient bit for bit), whole-network gradients of small
// lists versus central finite differences in double, shape inference errors, and the
// scenario path (keys, refusals with JSON paths, prepare).
#include <catch2/catch.hpp>

#include <cmath>

#include "models/objectives/cnn/conv_net.hpp"
#include "objective_helpers.hpp"
#include "run_helpers.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/load.hpp"

using namespace dlsim::models;
using namespace dlsim::test;
using cnn::Architecture;
using cnn::LayerSpec;
using Type = cnn::LayerSpec::Type;
using nlohmann::json;

namespace {

LayerSpec conv(std::int64_t channels, std::int64_t kernel, std::int64_t stride = 1,
               std::int64_t padding = 0) {
  return {.type = Type::conv,
          .channels = channels,
          .kernel = kernel,
          .stride = stride,
          .padding = padding};
}
LayerSpec dense(std::int64_t units) {
  return {.type = Type::dense, .units = units};
}
LayerSpec layer(Type type) {
  return {.type = type};
}

std::vector<LayerSpec> lenet5_list(Type act = Type::relu, Type pool = Type::maxpool) {
  return {conv(6, 5, 1, 2), layer(act), layer(pool), conv(16, 5), layer(act), layer(pool),
          dense(120),       layer(act), dense(84),   layer(act),  dense(10)};
}

Architecture custom(std::vector<LayerSpec> layers, cnn::Shape input = {1, 28, 28},
                    int classes = 10) {
  Architecture a;
  a.kind = Architecture::Kind::custom;
  a.layers = std::move(layers);
  a.input = input;
  a.classes = classes;
  return a;
}

Dataset image_data(Index n, Index pixels, int classes, std::uint64_t seed) {
  Dataset data = classification_data(n, pixels, classes, seed);
  data.features = (data.features.view().array() * 0.3 + 0.5).cwiseMax(0.0).cwiseMin(1.0).matrix();
  return data;
}

// Central differences along random directions and at every coordinate.
void check_gradient(const ConvNet& f, const Vector& w, const Dataset& data) {
  Vector grad;
  f.gradient(w, data, all_rows(data.size()), grad);
  REQUIRE(grad.size() == f.dimension());
  const double h = 1e-5;
  for (std::uint64_t seed : {1, 2, 3}) {
    const Vector v = random_vector(w.size(), 100 + seed).normalized();
    const double numeric = (f.loss(w + h * v, data) - f.loss(w - h * v, data)) / (2 * h);
    CHECK(numeric == Approx(grad.dot(v)).epsilon(1e-6));
  }
  Vector numeric(w.size());
  for (Index i = 0; i < w.size(); ++i) {
    Vector plus = w, minus = w;
    plus(i) += h;
    minus(i) -= h;
    numeric(i) = (f.loss(plus, data) - f.loss(minus, data)) / (2 * h);
  }
  CHECK(relative_error(grad, numeric) < 1e-6);
}

// The InputError of loading `doc`, as "where: what".
std::string refusal(const json& doc) {
  try {
    dlsim::sim::load_scenario(doc);
  } catch (const dlsim::sim::InputError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("cnn: a LeNet-5 layer list is LeNet-5 (parameters, FLOPs, init, loss, gradient)") {
  const Dataset data = image_data(6, 784, 10, 11);
  for (const Precision precision : {Precision::double_, Precision::single})
    for (const bool tanh : {false, true}) {
      INFO("tanh " << tanh << " float " << (precision == Precision::single));
      Architecture reference;
      reference.activation = tanh ? Activation::tanh : Activation::relu;
      reference.pooling = tanh ? cnn::PoolKind::average : cnn::PoolKind::max;
      const InitOptions init{.kind = tanh ? InitOptions::Kind::xavier : InitOptions::Kind::he};
      const Regularization reg{.l2 = 1e-3, .l1 = 0};
      const ConvNet lenet(reference, reg, init, precision);
      const ConvNet list(custom(tanh ? lenet5_list(Type::tanh, Type::avgpool) : lenet5_list()), reg,
                         init, precision);
      CHECK(list.dimension() == 61706);
      CHECK(list.dimension() == lenet.dimension());
      CHECK(list.tensor_sizes() == lenet.tensor_sizes());
      CHECK(list.gradient_cost(32).flops == lenet.gradient_cost(32).flops);
      // About 2.32 MFLOP per image without the l2 term (cnn_test.cpp's hand count).
      CHECK(ConvNet(custom(lenet5_list()), {}, init, precision).gradient_cost(1).flops ==
            Approx(2.321e6).epsilon(0.001));
      std::mt19937_64 a(9), b(9);
      const Vector w = lenet.initial_point(a);
      CHECK(list.initial_point(b) == w);  // same draws in the same order
      Vector g_lenet, g_list;
      lenet.gradient(w, data, all_rows(6), g_lenet);
      list.gradient(w, data, all_rows(6), g_list);
      CHECK(g_list == g_lenet);  // bit for bit
      CHECK(list.loss(w, data) == lenet.loss(w, data));
    }
}

TEST_CASE("cnn: conv + pool + dense + tanh gradient matches finite differences (double)") {
  const Dataset data = image_data(3, 2 * 8 * 8, 4, 5);
  const std::vector<LayerSpec> layers = {conv(3, 3, 1, 1), layer(Type::tanh), layer(Type::maxpool),
                                         conv(4, 3, 2, 1), layer(Type::tanh), layer(Type::avgpool),
                                         dense(5),         layer(Type::tanh), dense(4)};
  // 2x8x8 → 3x8x8 → 3x4x4 → 4x2x2 → 4x1x1 → 5 → 4
  const ConvNet f(custom(layers, {2, 8, 8}, 4), {.l2 = 0.01, .l1 = 0},
                  {.kind = InitOptions::Kind::xavier}, Precision::double_);
  CHECK(f.dimension() == (18 + 1) * 3 + (27 + 1) * 4 + (4 + 1) * 5 + (5 + 1) * 4);
  std::mt19937_64 rng(3);
  Vector w = f.initial_point(rng);
  w += random_vector(w.size(), 4, 0.05);  // nonzero biases
  check_gradient(f, w, data);
}

TEST_CASE("cnn: a list with global average pooling matches finite differences (double)") {
  const Dataset data = image_data(3, 7 * 7, 3, 6);
  const std::vector<LayerSpec> layers = {conv(4, 3, 2, 1),
                                         layer(Type::relu),
                                         conv(5, 2),
                                         layer(Type::relu),
                                         layer(Type::global_avg_pool),
                                         dense(3)};
  // 1x7x7 → 4x4x4 → 5x3x3 → 5x1x1 → 3
  const ConvNet f(custom(layers, {1, 7, 7}, 3), {}, {.kind = InitOptions::Kind::he},
                  Precision::double_);
  CHECK(f.dimension() == (9 + 1) * 4 + (16 + 1) * 5 + (5 + 1) * 3);
  std::mt19937_64 rng(4);
  Vector w = f.initial_point(rng);
  w += random_vector(w.size(), 5, 0.05);
  check_gradient(f, w, data);
}

TEST_CASE("cnn: shape inference names the offending layer and key") {
  const auto error =
      [](const std::vector<LayerSpec>& layers) -> std::pair<std::int64_t, std::string> {
    try {
      cnn::infer_layer_shapes(layers, {1, 28, 28}, 10);
    } catch (const cnn::LayerListError& e) {
      return {e.index(), e.key()};
    }
    return {-2, "accepted"};
  };
  CHECK(error(lenet5_list()) == std::pair<std::int64_t, std::string>{-2, "accepted"});
  CHECK(error({}) == std::pair<std::int64_t, std::string>{-1, ""});
  CHECK(error({conv(4, 29), dense(10)}) == std::pair<std::int64_t, std::string>{0, "kernel"});
  CHECK(error({conv(4, 3, 1, 3), dense(10)}) == std::pair<std::int64_t, std::string>{0, "padding"});
  CHECK(error({conv(4, 2), layer(Type::maxpool), dense(10)}) ==  // 27x27: odd
        std::pair<std::int64_t, std::string>{1, ""});
  CHECK(error({dense(84)}) == std::pair<std::int64_t, std::string>{0, "units"});
  CHECK(error({conv(10, 28)}) == std::pair<std::int64_t, std::string>{-2, "accepted"});
  CHECK(error({conv(10, 3), layer(Type::relu)}) == std::pair<std::int64_t, std::string>{1, ""});
  // Pooling a 1x1 map would reach size 0; pooling 7x7 is not 2x2 windows.
  CHECK(error({conv(10, 28), layer(Type::maxpool), dense(10)}) ==
        std::pair<std::int64_t, std::string>{1, ""});
  CHECK(error({conv(10, 1), layer(Type::maxpool), layer(Type::maxpool), layer(Type::avgpool),
               dense(10)}) == std::pair<std::int64_t, std::string>{3, ""});
  CHECK(error({layer(Type::maxpool), LayerSpec{.type = Type::avgpool, .size = 3}, dense(10)}) ==
        std::pair<std::int64_t, std::string>{1, "size"});
  Architecture a = custom({conv(4, 29), dense(10)});
  CHECK_THROWS_AS(ConvNet(a, {}, {}, Precision::single), cnn::LayerListError);
}

TEST_CASE("cnn: scenario keys, refusals with JSON paths, prepare") {
  const json base = json::parse(R"({
    "seed": 3, "workers": 1,
    "data": {"source": "synthetic-classification", "samples": 32, "features": 784, "classes": 10},
    "model": {"kind": "cnn", "layers": [
      {"type": "conv", "channels": 4, "kernel": 5, "stride": 2, "padding": 2},
      {"type": "relu"}, {"type": "maxpool"}, {"type": "dense", "units": 10}]},
    "algorithm": {"kind": "sgd", "batch_size": 8, "step_size": 0.05},
    "stop": {"iterations": 2}})");
  const json resolved = dlsim::sim::resolve_scenario(base);
  CHECK(resolved["model"]["layers"][0]["stride"] == 2);
  CHECK(resolved["model"]["layers"][2]["size"] == 2);
  CHECK(resolved["model"]["init"]["kind"] == "he");
  CHECK(resolved["model"]["precision"] == "float");
  const auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(base));
  // 1x28x28 → 4x14x14 → 4x7x7 → 10
  CHECK(prepared.objective->dimension() == (25 + 1) * 4 + (196 + 1) * 10);

  json bad = base;
  bad["model"]["layers"][0]["kernel"] = 40;
  CHECK(refusal(bad).rfind("model.layers[0].kernel: 40x40 does not fit", 0) == 0);
  bad = base;
  bad["model"]["layers"][3]["units"] = 9;
  CHECK(refusal(bad).rfind("model.layers[3].units: the last layer must give 10 outputs", 0) == 0);
  bad = base;
  bad["model"]["layers"][1]["type"] = "sigmoid";
  CHECK(refusal(bad).rfind("model.layers[1].type: unknown type \"sigmoid\"", 0) == 0);
  bad = base;
  bad["data"]["classes"] = 3;
  CHECK(refusal(bad) == "accepted");  // the data's classes are known once it is loaded
  CHECK_THROWS_AS(dlsim::sim::prepare(dlsim::sim::load_scenario(bad)), dlsim::sim::InputError);
}

TEST_CASE("cnn: group_norm layers on 3-channel non-square images match finite differences") {
  const Dataset data = image_data(3, 3 * 6 * 5, 4, 7);
  LayerSpec norm = layer(Type::group_norm);
  norm.groups = 2;
  const std::vector<LayerSpec> layers = {
      conv(4, 3, 1, 1), norm, layer(Type::relu), conv(6, 3, 2), norm, layer(Type::tanh), dense(4)};
  // 3x6x5 → 4x6x5 → (γ, β) → 6x2x2 → (γ, β) → 4
  const ConvNet f(custom(layers, {3, 6, 5}, 4), {.l2 = 0.01, .l1 = 0},
                  {.kind = InitOptions::Kind::he}, Precision::double_);
  CHECK(f.dimension() == (27 + 1) * 4 + 2 * 4 + (36 + 1) * 6 + 2 * 6 + (24 + 1) * 4);
  CHECK(f.tensor_sizes() == std::vector<Index>{108, 4, 4, 4, 216, 6, 6, 6, 96, 4});
  std::mt19937_64 rng(5);
  Vector w = f.initial_point(rng);
  CHECK(w.segment(112, 4) == Vector::Ones(4));  // γ starts at 1
  w += random_vector(w.size(), 6, 0.05);
  check_gradient(f, w, data);
  // Groups must divide the channels; the error names the layer and its key.
  LayerSpec three = norm;
  three.groups = 3;
  try {
    cnn::infer_layer_shapes({conv(4, 3), three, dense(10)}, {3, 6, 5}, 10);
    FAIL("accepted");
  } catch (const cnn::LayerListError& e) {
    CHECK(e.index() == 1);
    CHECK(e.key() == "groups");
    CHECK_THAT(e.what(),
               Catch::Contains("3 groups do not divide the 4 channels of the 4x4x3 input"));
  }
}
