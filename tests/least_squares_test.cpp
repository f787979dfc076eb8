// LeastSquares against independent truth: finite differences, the closed-form optimum
// from the normal equations, and hand-computed prox values.
#include <catch2/catch.hpp>

#include <cmath>
#include <numeric>
#include <random>
#include <vector>

#include "models/objectives/least_squares.hpp"

using namespace dlsim::models;

namespace {

Dataset gaussian_data(Index n, Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Dataset data;
  data.features.owned().resize(n, d);
  data.labels.resize(n);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < d; ++k) data.features.owned()(i, k) = normal(rng);
    data.labels(i) = 3.0 * normal(rng) + 1.5;  // offset so the bias matters
  }
  return data;
}

Vector random_vector(Index d, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Vector v(d);
  for (Index k = 0; k < d; ++k) v(k) = normal(rng);
  return v;
}

std::vector<Index> all_rows(Index n) {
  std::vector<Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), Index(0));
  return rows;
}

// The design matrix with a column of ones appended when the model has a bias.
Eigen::MatrixXd design(const Dataset& data, bool bias) {
  Eigen::MatrixXd a(data.size(), data.feature_count() + (bias ? 1 : 0));
  a.leftCols(data.feature_count()) = data.features.view();
  if (bias) a.col(data.feature_count()).setOnes();
  return a;
}

// Minimizer of the smooth objective: (AᵀA/N + λ2 I_reg) w = Aᵀb/N, bias not regularized.
Vector normal_equations(const Dataset& data, bool bias, double l2) {
  const Eigen::MatrixXd a = design(data, bias);
  const double n = double(data.size());
  Eigen::MatrixXd h = a.transpose() * a / n;
  for (Index k = 0; k < data.feature_count(); ++k) h(k, k) += l2;
  const Vector rhs = a.transpose() * data.labels / n;
  return h.ldlt().solve(rhs);
}

}  // namespace

TEST_CASE("least squares: dimension with and without bias") {
  CHECK(LeastSquares(7, {}, true, {}).dimension() == 8);
  CHECK(LeastSquares(7, {}, false, {}).dimension() == 7);
  CHECK(LeastSquares(7, {}, true, {}).parameters() == 8);
}

TEST_CASE("least squares: gradient matches central finite differences") {
  const Dataset data = gaussian_data(40, 6, 1);
  for (const bool bias : {true, false}) {
    const LeastSquares ls(6, {.l2 = 0.3, .l1 = 0.0}, bias, {});
    const Vector w = random_vector(ls.dimension(), 2);
    const auto rows = all_rows(data.size());
    Vector grad;
    ls.gradient(w, data, rows, grad);
    REQUIRE(grad.size() == ls.dimension());

    Vector numeric(ls.dimension());
    const double h = 1e-5;
    for (Index k = 0; k < ls.dimension(); ++k) {
      Vector plus = w, minus = w;
      plus(k) += h;
      minus(k) -= h;
      numeric(k) = (ls.loss(plus, data) - ls.loss(minus, data)) / (2 * h);
    }
    INFO("bias " << bias);
    CHECK((grad - numeric).norm() / numeric.norm() < 1e-6);
  }
}

TEST_CASE("least squares: batch gradient matches finite differences of the batch loss") {
  const Dataset data = gaussian_data(30, 4, 3);
  const LeastSquares ls(4, {.l2 = 0.1, .l1 = 0.0}, true, {});
  const std::vector<Index> rows = {17, 2, 9, 25, 4};
  Dataset batch;
  batch.features = data.features.view()(rows, Eigen::all);
  batch.labels = data.labels(rows);
  const Vector w = random_vector(5, 4);
  Vector grad;
  ls.gradient(w, data, rows, grad);
  Vector numeric(5);
  const double h = 1e-5;
  for (Index k = 0; k < 5; ++k) {
    Vector plus = w, minus = w;
    plus(k) += h;
    minus(k) -= h;
    numeric(k) = (ls.loss(plus, batch) - ls.loss(minus, batch)) / (2 * h);
  }
  CHECK((grad - numeric).norm() / numeric.norm() < 1e-6);
}

TEST_CASE("least squares: full-batch gradient equals the closed form and ignores row order") {
  const Dataset data = gaussian_data(50, 5, 5);
  const double l2 = 0.2;
  const LeastSquares ls(5, {.l2 = l2, .l1 = 0.7}, true, {});  // l1 is not in the gradient
  const Vector w = random_vector(6, 6);
  const Eigen::MatrixXd a = design(data, true);
  Vector expected = a.transpose() * (a * w - data.labels) / double(data.size());
  expected.head(5) += l2 * w.head(5);

  auto rows = all_rows(data.size());
  Vector in_order;
  ls.gradient(w, data, rows, in_order);
  CHECK((in_order - expected).norm() < 1e-12 * expected.norm());

  std::mt19937_64 rng(7);
  std::shuffle(rows.begin(), rows.end(), rng);
  Vector shuffled;
  ls.gradient(w, data, rows, shuffled);
  CHECK((shuffled - expected).norm() < 1e-12 * expected.norm());
}

TEST_CASE("least squares: batch gradient is the mean of single-row gradients") {
  const Dataset data = gaussian_data(25, 3, 8);
  const double l2 = 0.5;
  const LeastSquares ls(3, {.l2 = l2, .l1 = 0.0}, true, {});
  const Vector w = random_vector(4, 9);
  for (const std::vector<Index>& rows :
       {std::vector<Index>{3, 11, 0, 24, 7, 7}, std::vector<Index>{5, 6, 7, 8}}) {
    Vector batch;
    ls.gradient(w, data, rows, batch);
    Vector mean = Vector::Zero(4);
    Vector single;
    for (const Index r : rows) {
      const Index one[] = {r};
      ls.gradient(w, data, one, single);
      mean += single;
    }
    mean /= double(rows.size());
    CHECK((batch - mean).norm() < 1e-12 * mean.norm());
  }
}

TEST_CASE("least squares: the normal-equation solution is the optimum") {
  const Dataset data = gaussian_data(60, 5, 10);
  for (const bool bias : {true, false}) {
    INFO("bias " << bias);
    const double l2 = 0.05;
    const LeastSquares ls(5, {.l2 = l2, .l1 = 0.0}, bias, {});
    const Vector w_opt = normal_equations(data, bias, l2);
    Vector grad;
    ls.gradient(w_opt, data, all_rows(data.size()), grad);
    CHECK(grad.norm() < 1e-10);

    const double best = ls.loss(w_opt, data);
    for (std::uint64_t seed = 0; seed < 20; ++seed) {
      const Vector perturbed = w_opt + 1e-3 * random_vector(ls.dimension(), 100 + seed);
      CHECK(ls.loss(perturbed, data) > best);
    }
  }
}

TEST_CASE("least squares: the bias is not regularized") {
  const Dataset data = gaussian_data(20, 2, 11);
  const LeastSquares plain(2, {}, true, {});
  const LeastSquares reg(2, {.l2 = 2.0, .l1 = 3.0}, true, {});
  Vector w(3);
  w << 0.0, 0.0, 5.0;  // only the bias is nonzero
  CHECK(reg.loss(w, data) == Approx(plain.loss(w, data)).epsilon(1e-15));
  Vector g_plain, g_reg;
  plain.gradient(w, data, all_rows(20), g_plain);
  reg.gradient(w, data, all_rows(20), g_reg);
  CHECK(g_reg(2) == g_plain(2));
}

TEST_CASE("least squares: l1 and l2 terms in the loss") {
  Dataset data;
  data.features.owned().resize(2, 2);
  data.features.owned() << 1, 2, 3, 4;
  data.labels.resize(2);
  data.labels << 1, 2;
  Vector w(3);
  w << 1.0, -2.0, 0.5;  // bias 0.5
  // residuals: 1 − 4 + 0.5 − 1 = −3.5, 3 − 8 + 0.5 − 2 = −6.5
  const double data_part = (3.5 * 3.5 + 6.5 * 6.5) / 4.0;
  const LeastSquares ls(2, {.l2 = 0.1, .l1 = 0.25}, true, {});
  CHECK(ls.data_loss(w, data) == Approx(data_part).epsilon(1e-14));
  CHECK(ls.loss(w, data) ==
        Approx(data_part + 0.05 * (1.0 + 4.0) + 0.25 * (1.0 + 2.0)).epsilon(1e-14));
}

TEST_CASE("least squares: prox soft-thresholds the weights, not the bias") {
  const LeastSquares ls(4, {.l2 = 0.0, .l1 = 0.5}, true, {});
  Vector w(5);
  w << 2.0, -0.3, 0.2, -1.5, -0.1;
  ls.prox(w, 0.4);  // threshold 0.2
  CHECK(w(0) == Approx(1.8).epsilon(1e-15));
  CHECK(w(1) == Approx(-0.1).epsilon(1e-15));
  CHECK(w(2) == 0.0);
  CHECK(w(3) == Approx(-1.3).epsilon(1e-15));
  CHECK(w(4) == -0.1);  // bias untouched although |β| < threshold

  const LeastSquares no_l1(4, {.l2 = 1.0, .l1 = 0.0}, true, {});
  Vector v = Vector::Constant(5, 0.01);
  no_l1.prox(v, 10.0);
  CHECK(v == Vector::Constant(5, 0.01));
}

TEST_CASE("least squares: FLOP count of a batch gradient") {
  const LeastSquares ls(9, {}, true, {});  // d = 10
  CHECK(ls.gradient_cost(32).flops == 4.0 * 32 * 10 + 2.0 * 10);
  CHECK(ls.gradient_cost(32).seconds == 0.0);
  const LeastSquares nb(9, {}, false, {});  // d = 9
  CHECK(nb.gradient_cost(1).flops == 4.0 * 9 + 18.0);
}

TEST_CASE("least squares: initial point") {
  std::mt19937_64 rng(1);
  CHECK(LeastSquares(3, {}, true, {}).initial_point(rng) == Vector::Zero(4));

  const LeastSquares normal(2000, {}, false, {.kind = InitOptions::Kind::normal, .std = 0.5});
  std::mt19937_64 a(42), b(42);
  const Vector w = normal.initial_point(a);
  CHECK(w == normal.initial_point(b));
  CHECK(w.size() == 2000);
  const double sd = std::sqrt((w.array() - w.mean()).square().mean());
  CHECK(sd == Approx(0.5).epsilon(0.05));
  CHECK(std::abs(w.mean()) < 0.05);
}

TEST_CASE("least squares: mismatched shapes are rejected") {
  const Dataset data = gaussian_data(5, 3, 12);
  const LeastSquares ls(4, {}, true, {});
  Vector grad;
  const auto rows = all_rows(5);
  CHECK_THROWS_AS(ls.loss(Vector::Zero(5), data), std::invalid_argument);
  CHECK_THROWS_AS(ls.gradient(Vector::Zero(5), data, rows, grad), std::invalid_argument);
  const LeastSquares ok(3, {}, true, {});
  CHECK_THROWS_AS(ok.gradient(Vector::Zero(3), data, rows, grad), std::invalid_argument);
  const std::vector<Index> bad = {0, 5};
  CHECK_THROWS_AS(ok.gradient(Vector::Zero(4), data, bad, grad), std::out_of_range);
}
