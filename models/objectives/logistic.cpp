// Logistic loss with numerically stable pieces:
//   log(1 + e^(−m)) = max(−m, 0) + log1p(e^(−|m|)),   σ(t) = 1/(1 + e^(−t)).
#include "models/objectives/logistic.hpp"

#include "models/cpu/elementwise.hpp"
#include "models/objectives/batch.hpp"

namespace dlsim::models {

namespace {
constexpr const char* kLogisticName = "logistic";

struct LogisticScratch {
  Matrix x;
  Vector y, z;
};
LogisticScratch& logistic_scratch() {
  thread_local LogisticScratch s;
  return s;
}
}  // namespace

Logistic::Logistic(Index features, Regularization reg, bool bias, InitOptions init)
    : features_(features), reg_(reg), bias_(bias), init_(init) {
  if (features < 1) throw std::invalid_argument("logistic: features must be >= 1");
  if (reg.l2 < 0 || reg.l1 < 0) throw std::invalid_argument("logistic: l2 and l1 must be >= 0");
  check_init(init, kLogisticName);
}

Vector Logistic::margins(const Vector& w, const Dataset& data, Index begin, Index end) const {
  check_features(data, features_, kLogisticName);
  check_size(w, dimension(), kLogisticName);
  check_row_range(begin, end, data.size(), kLogisticName);
  Vector z;
  data.features.times(begin, end - begin, w.head(features_), z);
  if (bias_) z.array() += w(features_);
  return z;
}

std::optional<LossSums> Logistic::data_sums(const Vector& w, const Dataset& data, Index begin,
                                            Index end) const {
  const Vector z = margins(w, data, begin, end);
  const auto y = data.labels.segment(begin, end - begin).array();
  const Eigen::ArrayXd m = z.array() * y;
  const Eigen::ArrayXd predicted =
      (z.array() > 0).select(1.0, Eigen::ArrayXd::Constant(z.size(), -1.0));
  return LossSums{((-m).max(0.0) + (-m.abs()).exp().log1p()).sum(),
                  (predicted == y).cast<double>().sum()};
}

double Logistic::regularizer(const Vector& w) const {
  const auto wf = w.head(features_);
  double value = 0;
  if (reg_.l2 != 0) value += 0.5 * reg_.l2 * wf.squaredNorm();
  if (reg_.l1 != 0) value += reg_.l1 * wf.lpNorm<1>();
  return value;
}

void Logistic::gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                        Vector& grad) const {
  check_features(data, features_, kLogisticName);
  check_size(w, dimension(), kLogisticName);
  check_batch(rows, data.size(), kLogisticName);
  LogisticScratch& s = logistic_scratch();
  gather_batch(data, rows, s.x, s.y);
  const double inv_b = 1.0 / double(rows.size());
  const auto wf = w.head(features_);

  s.z.noalias() = s.x * wf;
  if (bias_) s.z.array() += w(features_);
  // u = −y ⊙ σ(−y ⊙ z), σ(t) = 1/(1 + e^(−t)) with t = −y z: 1/(1 + e^(y z)).
  s.z = (-s.y.array() / (1.0 + (s.y.array() * s.z.array()).exp())).matrix();

  grad.resize(dimension());
  auto gf = grad.head(features_);
  if (rows.size() == 1) {
    // One row: A_Bᵀu is the row times u, in one pass with the scaling and λ2 w_f instead of
    // three: gf = (0 + x_row u)/b + λ2 w_f (models/cpu/elementwise.hpp). Eigen's
    // matrix-vector product adds each x_j·u to +0, which turns a −0 into +0: kept, so the
    // sums are the general path's bit for bit (tests/logistic_test.cpp).
    elementwise::scaled_plus(gf.data(), s.x.data(), s.z(0), inv_b, reg_.l2, wf.data(), features_);
  } else {
    gf.noalias() = s.x.transpose() * s.z;
    gf *= inv_b;
    if (reg_.l2 != 0) gf += reg_.l2 * wf;
  }
  if (bias_) grad(features_) = s.z.sum() * inv_b;
}

ComputeCost Logistic::gradient_cost(Index batch) const {
  const double b = double(batch), d = double(features_);
  double flops = 4 * b * d + 5 * b + d;  // see the header
  if (bias_) flops += 2 * b + 1;
  if (reg_.l2 != 0) flops += 2 * d;
  return {flops, 0.0};
}

void Logistic::prox(Vector& w, double step) const {
  check_size(w, dimension(), kLogisticName);
  soft_threshold(w.head(features_), step * reg_.l1);
}

Vector Logistic::initial_point(std::mt19937_64& rng) const {
  Vector w = Vector::Zero(dimension());
  if (init_.kind == InitOptions::Kind::normal) fill_normal(w, init_.std, rng);
  return w;
}

}  // namespace dlsim::models
