// MLP against independent truth: finite differences through every layer (relu and
// tanh, with and without l2 and bias, several depths), the hand-counted FLOPs, the
// parameter layout, and the He/Xavier initialisation statistics.
#include <catch2/catch.hpp>

#include <cmath>

#include "init_helpers.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"

using namespace dlsim::models;
using namespace dlsim::test;

TEST_CASE("mlp: gradient matches central finite differences") {
  const Dataset data = classification_data(25, 6, 3, 11);
  for (const Activation act : {Activation::relu, Activation::tanh})
    for (const bool bias : {true, false})
      for (const double l2 : {0.0, 0.1})
        for (const std::vector<Index>& hidden : {std::vector<Index>{5}, std::vector<Index>{7, 4}}) {
          INFO("tanh " << (act == Activation::tanh) << " bias " << bias << " l2 " << l2
                       << " layers " << hidden.size());
          const Mlp f(6, hidden, 3, act, {.l2 = l2, .l1 = 0}, bias,
                      {.kind = InitOptions::Kind::normal, .std = 0.7});
          std::mt19937_64 rng(12);
          Vector w = f.initial_point(rng);
          if (bias) w += random_vector(w.size(), 13, 0.1);  // nonzero biases
          Vector grad;
          f.gradient(w, data, all_rows(data.size()), grad);
          CHECK(relative_error(grad, numeric_gradient(f, w, data)) < 1e-6);
          const std::vector<Index> rows = {3, 24, 3, 10};
          f.gradient(w, data, rows, grad);
          CHECK(relative_error(grad, numeric_gradient(f, w, subset(data, rows))) < 1e-6);
        }
}

TEST_CASE("mlp: parameter layout is W1 b1 W2 b2 ...") {
  const Mlp f(784, {128}, 10, Activation::relu, {}, true, {.kind = InitOptions::Kind::he});
  CHECK(f.dimension() == 784 * 128 + 128 + 128 * 10 + 10);
  CHECK(f.tensor_sizes() == std::vector<Index>{784 * 128, 128, 1280, 10});
  Index total = 0;
  for (Index s : f.tensor_sizes()) total += s;
  CHECK(total == f.parameters());
  const Mlp no_bias(4, {3, 2}, 2, Activation::tanh, {}, false, {});
  CHECK(no_bias.tensor_sizes() == std::vector<Index>{12, 6, 4});
}

TEST_CASE("mlp: with no hidden layer it is softmax regression") {
  const Dataset data = classification_data(20, 4, 3, 14);
  const Mlp mlp(4, {}, 3, Activation::relu, {.l2 = 0.1, .l1 = 0}, true, {});
  const Softmax softmax(4, 3, {.l2 = 0.1, .l1 = 0}, true, {});
  const Vector w = random_vector(softmax.dimension(), 15);
  CHECK(mlp.loss(w, data) == softmax.loss(w, data));
}

TEST_CASE("mlp: He and Xavier initialisation have the stated spread; biases start at 0") {
  std::mt19937_64 rng(16);
  const Mlp he(400, {300}, 10, Activation::relu, {}, true, {.kind = InitOptions::Kind::he});
  const Vector w = he.initial_point(rng);
  const auto w1 = w.head(400 * 300);
  CHECK(std::sqrt(w1.squaredNorm() / double(w1.size())) ==
        Approx(std::sqrt(2.0 / 400)).epsilon(0.01));
  CHECK(w.segment(400 * 300, 300).isZero(0.0));
  const Mlp xavier(400, {300}, 10, Activation::tanh, {}, true, {.kind = InitOptions::Kind::xavier});
  const Vector v = xavier.initial_point(rng);
  const auto v1 = v.head(400 * 300);
  CHECK(std::sqrt(v1.squaredNorm() / double(v1.size())) ==
        Approx(std::sqrt(2.0 / 700)).epsilon(0.01));
  std::mt19937_64 a(3), b(3);
  CHECK(he.initial_point(a) == he.initial_point(b));
}

TEST_CASE("mlp: the torch init draws W and b of every layer on U(+-1/sqrt(fan_in))") {
  std::mt19937_64 rng(21);
  const Mlp f(400, {300}, 10, Activation::relu, {}, true, {.kind = InitOptions::Kind::torch});
  const Vector w = f.initial_point(rng);
  // W1 400x300, b1 300 (fan-in 400); W2 300x10, b2 10 (fan-in 300).
  check_torch_init(w, {{400 * 300, 400}, {300, 400}, {300 * 10, 300}, {10, 300}});
}

TEST_CASE("mlp: FLOP count matches a hand count") {
  // 3 → 4 (relu) → 2, b = 5, bias, no l2.
  //  layer 1: forward 2·5·3·4 = 120, + b 20, relu 20, ∇W 120, ∇b 20          = 300
  //  layer 2: forward 2·5·4·2 = 80, + b 10, ∇W 80, ∇b 10,
  //           G W2ᵀ 80, relu' 2·5·4 = 40                                    = 300
  //  output: softmax 5·5·2 = 50, P − Y 5, ·1/b 10                           = 65
  CHECK(Mlp(3, {4}, 2, Activation::relu, {}, true, {}).gradient_cost(5).flops == 665.0);
  // tanh: derivative 3·5·4 = 60 instead of 40; l2 adds 2·(12 + 8) = 40.
  CHECK(Mlp(3, {4}, 2, Activation::tanh, {.l2 = 0.1, .l1 = 0}, true, {}).gradient_cost(5).flops ==
        725.0);
}

TEST_CASE("mlp: loss decreases under gradient descent and data size is checked") {
  const Dataset data = classification_data(100, 8, 4, 17);
  const Mlp f(8, {16}, 4, Activation::tanh, {}, true, {.kind = InitOptions::Kind::xavier});
  std::mt19937_64 rng(18);
  Vector w = f.initial_point(rng), grad;
  const double before = f.loss(w, data);
  for (int it = 0; it < 200; ++it) {
    f.gradient(w, data, all_rows(100), grad);
    w -= 0.5 * grad;
  }
  CHECK(f.loss(w, data) < 0.7 * before);
  const Dataset wrong = classification_data(10, 7, 4, 19);
  CHECK_THROWS_AS(f.loss(w, wrong), std::invalid_argument);
  const std::vector<Index> out_of_range = {100};
  CHECK_THROWS_AS(f.gradient(w, data, out_of_range, grad), std::out_of_range);
}
