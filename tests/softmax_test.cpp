// Softmax regression against independent truth: finite differences, a per-sample
// reference implementation of loss and gradient, the hand-counted FLOPs, and
// full-batch gradient descent reaching the optimum of a long independent run.
#include <catch2/catch.hpp>

#include <cmath>

#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"

using namespace dlsim::models;
using namespace dlsim::test;

namespace {

// Straightforward per-sample cross-entropy, written independently of the batched code.
double reference_loss(const Vector& w, const Dataset& data, int classes, bool bias) {
  const Index d = data.feature_count();
  double total = 0;
  for (Index i = 0; i < data.size(); ++i) {
    std::vector<double> z(std::size_t(classes), 0.0);
    for (int c = 0; c < classes; ++c) {
      for (Index k = 0; k < d; ++k) z[std::size_t(c)] += data.features(i, k) * w(c * d + k);
      if (bias) z[std::size_t(c)] += w(d * classes + c);
    }
    double norm = 0;
    for (double v : z) norm += std::exp(v);
    total += std::log(norm) - z[std::size_t(data.labels(i))];
  }
  return total / double(data.size());
}

}  // namespace

TEST_CASE("softmax: loss equals a per-sample reference") {
  const Dataset data = classification_data(30, 4, 3, 1);
  for (const bool bias : {true, false}) {
    const Softmax f(4, 3, {}, bias, {});
    const Vector w = random_vector(f.dimension(), 2);
    CHECK(f.data_loss(w, data) == Approx(reference_loss(w, data, 3, bias)).epsilon(1e-12));
  }
  // At w = 0 every class has probability 1/C.
  const Softmax f(4, 3, {}, true, {});
  CHECK(f.data_loss(Vector::Zero(f.dimension()), data) == Approx(std::log(3.0)).epsilon(1e-14));
}

TEST_CASE("softmax: gradient matches central finite differences") {
  const Dataset data = classification_data(40, 5, 4, 3);
  for (const bool bias : {true, false})
    for (const double l2 : {0.0, 0.2}) {
      INFO("bias " << bias << " l2 " << l2);
      const Softmax f(5, 4, {.l2 = l2, .l1 = 0}, bias, {});
      const Vector w = random_vector(f.dimension(), 4);
      Vector grad;
      f.gradient(w, data, all_rows(data.size()), grad);
      CHECK(relative_error(grad, numeric_gradient(f, w, data)) < 1e-6);
      const std::vector<Index> rows = {39, 0, 17, 17, 8, 21};
      f.gradient(w, data, rows, grad);
      CHECK(relative_error(grad, numeric_gradient(f, w, subset(data, rows))) < 1e-6);
    }
}

TEST_CASE("softmax: layout, tensor sizes, regularizers skip the bias") {
  const Softmax f(784, 10, {.l2 = 1.0, .l1 = 1.0}, true, {});
  CHECK(f.dimension() == 7850);
  CHECK(f.tensor_sizes() == std::vector<Index>{7840, 10});
  CHECK(Softmax(784, 10, {}, false, {}).tensor_sizes() == std::vector<Index>{7840});
  const Dataset data = classification_data(5, 784, 10, 5);
  Vector w = Vector::Zero(7850);
  w.tail(10).setConstant(3.0);  // only biases: no l1/l2 cost
  CHECK(f.loss(w, data) == Approx(f.data_loss(w, data)).epsilon(1e-15));
  f.prox(w, 10.0);
  CHECK(w.tail(10).isConstant(3.0));
}

TEST_CASE("softmax: accuracy of a hand-made model") {
  Dataset data;
  data.features.owned().resize(3, 2);
  data.features.owned() << 1, 0, 0, 1, 1, 1;
  data.labels.resize(3);
  data.labels << 0, 1, 0;
  data.classes = 2;
  const Softmax f(2, 2, {}, false, {});
  Vector w(4);  // W column-major 2×2: class 0 weights (1, 0), class 1 weights (0, 2)
  w << 1, 0, 0, 2;
  // logits: (1, 0) → 0 ✓; (0, 2) → 1 ✓; (1, 2) → 1 ✗
  CHECK(*f.accuracy(w, data) == Approx(2.0 / 3.0));
}

TEST_CASE("softmax: FLOP count matches a hand count") {
  // b = 4, d = 3, C = 2, bias, l2: forward GEMM 2·4·3·2 = 48, ∇W GEMM 48, + b 8,
  // ∇b 8, softmax 5·4·2 = 40, P − Y 4, ·1/b 8, l2 2·3·2 = 12 → 176.
  CHECK(Softmax(3, 2, {.l2 = 0.5, .l1 = 0}, true, {}).gradient_cost(4).flops == 176.0);
  CHECK(Softmax(3, 2, {}, false, {}).gradient_cost(4).flops == 148.0);
}

TEST_CASE("softmax: full-batch gradient descent converges to the L2 optimum") {
  const Dataset data = classification_data(60, 3, 3, 7);
  const Softmax f(3, 3, {.l2 = 0.5, .l1 = 0}, true, {});
  const auto rows = all_rows(data.size());
  Vector grad;
  // Independent long run: 20000 steps of 0.5; then 2000 more with a different step.
  Vector reference = Vector::Zero(f.dimension());
  for (int it = 0; it < 20000; ++it) {
    f.gradient(reference, data, rows, grad);
    reference -= 0.5 * grad;
  }
  REQUIRE(grad.norm() < 1e-12);
  // The loss is flat along "every bias + c" (unregularized), a direction gradient steps
  // never change: start both runs with biases summing to 0.
  Vector w = random_vector(f.dimension(), 8);
  w.tail(3).array() -= w.tail(3).mean();
  for (int it = 0; it < 4000; ++it) {
    f.gradient(w, data, rows, grad);
    w -= 0.8 * grad;
  }
  CHECK((w - reference).norm() / reference.norm() < 1e-8);
}
