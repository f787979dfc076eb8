// Logistic regression against independent truth: central finite differences, a
// Newton's-method optimum of the L2-regularized problem (an independent oracle for
// full-batch gradient descent), hand-computed values, the prox and the FLOP count.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <vector>

#include "models/objectives/logistic.hpp"
#include "objective_helpers.hpp"

using namespace dlsim::models;
using namespace dlsim::test;

namespace {

// Binary data: y = sign(a'w* + 0.5 + noise) ∈ {−1, +1}.
Dataset binary_data(Index n, Index d, std::uint64_t seed) {
  Dataset data = classification_data(n, d, 2, seed);
  const Vector w_star = random_vector(d, seed + 1);
  const Vector noise = random_vector(n, seed + 2);
  const Vector z = data.features.view() * w_star + noise;
  data.labels = (z.array() + 0.5 > 0).select(Vector::Ones(n), -Vector::Ones(n));
  return data;
}

// Newton's method on f(w) = mean log(1 + exp(−y z)) + (λ/2)||w_f||², z = A w_f + β.
Vector newton_optimum(const Dataset& data, bool bias, double l2) {
  const Index d = data.feature_count(), p = d + (bias ? 1 : 0), n = data.size();
  Eigen::MatrixXd a(n, p);
  a.leftCols(d) = data.features.view();
  if (bias) a.col(d).setOnes();
  Vector w = Vector::Zero(p);
  for (int it = 0; it < 50; ++it) {
    const Eigen::ArrayXd z = a * w;
    const Eigen::ArrayXd y = data.labels.array();
    const Eigen::ArrayXd s = 1.0 / (1.0 + (y * z).exp());  // σ(−yz)
    Vector g = a.transpose() * (-y * s).matrix() / double(n);
    const Eigen::ArrayXd curvature = s * (1 - s);
    Eigen::MatrixXd h = a.transpose() * curvature.matrix().asDiagonal() * a / double(n);
    for (Index k = 0; k < d; ++k) {
      g(k) += l2 * w(k);
      h(k, k) += l2;
    }
    w -= h.ldlt().solve(g);
  }
  return w;
}

}  // namespace

TEST_CASE("logistic: gradient matches central finite differences") {
  const Dataset data = binary_data(50, 5, 1);
  for (const bool bias : {true, false})
    for (const double l2 : {0.0, 0.3}) {
      INFO("bias " << bias << " l2 " << l2);
      const Logistic f(5, {.l2 = l2, .l1 = 0.0}, bias, {});
      const Vector w = random_vector(f.dimension(), 3);
      Vector grad;
      f.gradient(w, data, all_rows(data.size()), grad);
      CHECK(relative_error(grad, numeric_gradient(f, w, data)) < 1e-6);

      // A batch with repeated and unordered rows: the gradient of the batch's own loss.
      const std::vector<Index> rows = {7, 3, 3, 40, 12};
      f.gradient(w, data, rows, grad);
      CHECK(relative_error(grad, numeric_gradient(f, w, subset(data, rows))) < 1e-6);
    }
}

TEST_CASE("logistic: a one-row gradient has the general formula's bits") {
  // The general path, as Logistic::gradient computes a batch: Eigen's products on the
  // gathered rows (x row-major, like FeatureMatrix), then the scaling and λ2 w_f.
  const auto general = [](const Logistic& f, const Vector& w, const Dataset& data, Index row,
                          bool bias, double l2) {
    const Index d = data.feature_count();
    const Matrix x = data.features.view().middleRows(row, 1);
    const Vector y = data.labels.segment(row, 1);
    Vector z;
    z.noalias() = x * w.head(d);
    if (bias) z.array() += w(d);
    z = (-y.array() / (1.0 + (y.array() * z.array()).exp())).matrix();
    Vector g(f.dimension());
    auto gf = g.head(d);
    gf.noalias() = x.transpose() * z;
    gf *= 1.0;
    if (l2 != 0) gf += l2 * w.head(d);
    if (bias) g(d) = z.sum() * 1.0;
    return g;
  };
  Dataset data = binary_data(40, 13, 5);
  // Zero features: x_j·u is −0 when u < 0, which the general path's +0 + x_j·u turns into +0.
  for (Index i = 0; i < data.size(); ++i)
    for (Index k = 0; k < data.feature_count(); k += 3) data.features.owned()(i, k) = 0.0;
  int telling_rows = 0;  // rows whose x_j·u = −0 shows in the gradient (y = +1: u < 0; no λ2)
  for (const bool bias : {true, false})
    for (const double l2 : {0.0, 0.3}) {
      INFO("bias " << bias << " l2 " << l2);
      const Logistic f(13, {.l2 = l2, .l1 = 0.0}, bias, {});
      const Vector w = random_vector(f.dimension(), 6);
      for (Index row = 0; row < data.size(); ++row) {
        Vector grad;
        f.gradient(w, data, std::vector<Index>{row}, grad);
        const Vector expected = general(f, w, data, row, bias, l2);
        REQUIRE(grad.size() == expected.size());
        CHECK(std::memcmp(grad.data(), expected.data(), sizeof(double) * grad.size()) == 0);
        telling_rows += l2 == 0 && data.labels(row) > 0 ? 1 : 0;
      }
    }
  CHECK(telling_rows > 0);
}

TEST_CASE("logistic: loss by hand and the unregularized bias") {
  Dataset data;
  data.features.owned().resize(2, 1);
  data.features.owned() << 1.0, -2.0;
  data.labels.resize(2);
  data.labels << 1.0, -1.0;
  Vector w(2);
  w << 0.5, 0.25;  // z = 0.75, −0.75
  const Logistic f(1, {.l2 = 0.2, .l1 = 0.1}, true, {});
  const double data_part = std::log1p(std::exp(-0.75));  // both samples have y z = 0.75
  CHECK(f.data_loss(w, data) == Approx(data_part).epsilon(1e-14));
  CHECK(f.loss(w, data) == Approx(data_part + 0.1 * 0.25 + 0.1 * 0.5).epsilon(1e-14));
  CHECK(*f.accuracy(w, data) == 1.0);
  // Extreme margins stay finite.
  w << 1000.0, 0.0;
  CHECK(std::isfinite(f.data_loss(w, data)));
  w << -1000.0, 0.0;
  CHECK(f.data_loss(w, data) == Approx((1000.0 + 2000.0) / 2.0));
}

TEST_CASE("logistic: full-batch gradient descent reaches Newton's optimum to 1e-8") {
  const Dataset data = binary_data(80, 4, 5);
  for (const bool bias : {true, false}) {
    INFO("bias " << bias);
    const double l2 = 0.1;
    const Logistic f(4, {.l2 = l2, .l1 = 0.0}, bias, {});
    const Vector w_opt = newton_optimum(data, bias, l2);
    Vector grad;
    f.gradient(w_opt, data, all_rows(data.size()), grad);
    REQUIRE(grad.norm() < 1e-12);

    // Step 1/L with L = λmax(AᵀA)/(4N) + λ2 ≥ the smoothness constant.
    Eigen::MatrixXd a(data.size(), f.dimension());
    a.leftCols(4) = data.features.view();
    if (bias) a.col(4).setOnes();
    const double top =
        Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(a.transpose() * a).eigenvalues().maxCoeff();
    const double step = 1.0 / (top / (4.0 * double(data.size())) + l2);
    Vector w = Vector::Zero(f.dimension());
    const auto rows = all_rows(data.size());
    for (int it = 0; it < 5000; ++it) {
      f.gradient(w, data, rows, grad);
      w -= step * grad;
    }
    CHECK((w - w_opt).norm() / w_opt.norm() < 1e-8);
  }
}

TEST_CASE("logistic: prox is soft-thresholding of the weights, bias untouched") {
  const Logistic f(3, {.l2 = 0.0, .l1 = 0.5}, true, {});
  Vector w(4);
  w << 2.0, -0.3, -1.0, 0.2;
  f.prox(w, 0.4);  // threshold 0.2
  CHECK(w(0) == Approx(1.8));
  CHECK(w(1) == Approx(-0.1));
  CHECK(w(2) == Approx(-0.8));
  CHECK(w(3) == 0.2);
  Vector small(4);
  small << 0.1, -0.2, 0.15, -5.0;
  f.prox(small, 1.0);  // threshold 0.5
  CHECK(small.head(3).isZero(0.0));
  CHECK(small(3) == -5.0);
}

TEST_CASE("logistic: FLOP count matches a hand count") {
  // b = 4, d = 3, bias, l2: z 2·4·3 = 24, elementwise 5·4 = 20, Aᵀu 24, ·1/b 3,
  // bias 2·4 + 1 = 9, l2 2·3 = 6 → 86.
  CHECK(Logistic(3, {.l2 = 0.1, .l1 = 0}, true, {}).gradient_cost(4).flops == 86.0);
  // Without bias and l2: 24 + 20 + 24 + 3 = 71.
  CHECK(Logistic(3, {}, false, {}).gradient_cost(4).flops == 71.0);
}

TEST_CASE("logistic: normal initialisation draws from the seed") {
  const Logistic f(1000, {}, true, {.kind = InitOptions::Kind::normal, .std = 0.5});
  std::mt19937_64 a(1), b(1);
  const Vector w = f.initial_point(a);
  CHECK(w == f.initial_point(b));
  const double sd = std::sqrt(w.squaredNorm() / double(w.size()));
  CHECK(sd == Approx(0.5).epsilon(0.1));
  std::mt19937_64 c(1);
  CHECK(Logistic(10, {}, true, {}).initial_point(c).isZero(0.0));
}
