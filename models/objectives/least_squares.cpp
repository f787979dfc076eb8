// Least squares with optional bias, l2 and l1 (prox) terms:
//   f(w) = (1/2N) ||A w_f + β·1 − b||² + (λ2/2)||w_f||² + λ1||w_f||₁
//   ∇ on rows B: (1/|B|) A_Bᵀ r_B + λ2 w_f,  ∂β = (1/|B|) Σ r_B,  r_B = A_B w_f + β − b_B
// where w_f are the feature weights and β the bias (last coordinate, only with `bias`).
#include "models/objectives/least_squares.hpp"

#include <stdexcept>
#include <string>

namespace dlsim::models {

namespace {

// Per-thread scratch for the hot path: gradients on equal-sized batches reuse the same
// storage, and concurrent workers never share it.
struct LeastSquaresScratch {
  Matrix rows;
  Vector residual;
};

LeastSquaresScratch& least_squares_scratch() {
  thread_local LeastSquaresScratch s;
  return s;
}

// Rows must lie in [0, n). Returns true when they are first, first+1, ...: the batch is
// then a block of the matrix and needs no gather (full-batch gradients, sorted shards).
bool check_rows(std::span<const Index> rows, Index n) {
  bool contiguous = true;
  bool in_range = true;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    in_range &= rows[i] >= 0 && rows[i] < n;
    contiguous &= rows[i] == rows[0] + Index(i);
  }
  if (!in_range) throw std::out_of_range("least squares: batch row out of range");
  return contiguous;
}

void check_shapes(const Vector& w, Index dimension, const Dataset& data, Index features) {
  if (data.feature_count() != features) {
    throw std::invalid_argument("least squares: data has " + std::to_string(data.feature_count()) +
                                " features, model expects " + std::to_string(features));
  }
  if (w.size() != dimension) {
    throw std::invalid_argument("least squares: parameter vector has " + std::to_string(w.size()) +
                                " entries, expected " + std::to_string(dimension));
  }
}

}  // namespace

LeastSquares::LeastSquares(Index features, Regularization reg, bool bias, InitOptions init)
    : features_(features), reg_(reg), bias_(bias), init_(init) {
  if (features < 1) throw std::invalid_argument("least squares: features must be >= 1");
  if (reg.l2 < 0 || reg.l1 < 0) {
    throw std::invalid_argument("least squares: l2 and l1 must be >= 0");
  }
  if (init.kind == InitOptions::Kind::normal && !(init.std >= 0)) {
    throw std::invalid_argument("least squares: init std must be >= 0");
  }
}

Index LeastSquares::dimension() const {
  return features_ + (bias_ ? 1 : 0);
}

std::optional<LossSums> LeastSquares::data_sums(const Vector& w, const Dataset& data, Index begin,
                                                Index end) const {
  check_shapes(w, dimension(), data, features_);
  if (begin < 0 || begin > end || end > data.size())
    throw std::invalid_argument("least squares: row range [" + std::to_string(begin) + ", " +
                                std::to_string(end) + ") is not within the data set");
  const double beta = bias_ ? w(features_) : 0.0;
  const Index rows = end - begin;
  Vector z;
  data.features.times(begin, rows, w.head(features_), z);
  const double sum_sq =
      (z.array() + beta - data.labels.segment(begin, rows).array()).square().sum();
  return LossSums{sum_sq / 2.0, std::nullopt};
}

double LeastSquares::data_loss(const Vector& w, const Dataset& data) const {
  check_shapes(w, dimension(), data, features_);
  if (data.size() == 0) throw std::invalid_argument("least squares: empty data set");
  return data_sums(w, data, 0, data.size())->loss / double(data.size());
}

double LeastSquares::regularizer(const Vector& w) const {
  const auto wf = w.head(features_);
  double value = 0;
  if (reg_.l2 != 0) value += 0.5 * reg_.l2 * wf.squaredNorm();
  if (reg_.l1 != 0) value += reg_.l1 * wf.lpNorm<1>();
  return value;
}

double LeastSquares::loss(const Vector& w, const Dataset& data) const {
  return data_loss(w, data) + regularizer(w);  // data_loss also checks the shapes
}

void LeastSquares::gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                            Vector& grad) const {
  check_shapes(w, dimension(), data, features_);
  if (rows.empty()) throw std::invalid_argument("least squares: gradient on an empty batch");
  const bool contiguous = check_rows(rows, data.size());
  const Index b = Index(rows.size());
  const double beta = bias_ ? w(features_) : 0.0;
  const auto wf = w.head(features_);
  LeastSquaresScratch& s = least_squares_scratch();
  grad.resize(dimension());
  auto gf = grad.head(features_);

  // r = A_B w_f + β − b_B, then g_f = A_Bᵀ r / |B|: two matrix-vector products.
  const auto compute = [&](const auto& a_rows, const auto& b_rows) {
    s.residual.resize(b);
    s.residual.noalias() = a_rows * wf;
    s.residual.array() += beta;
    s.residual -= b_rows;
    gf.noalias() = a_rows.transpose() * s.residual;
    gf /= double(b);
    if (reg_.l2 != 0) gf += reg_.l2 * wf;
    if (bias_) grad(features_) = s.residual.sum() / double(b);
  };

  if (contiguous && !data.features.is_float32()) {  // float64 rows as they are (or widened)
    data.features.for_row_blocks(rows[0], b, [&](Index, const auto& a_rows) {
      compute(a_rows, data.labels.segment(rows[0], b));
    });
  } else {
    data.features.gather(rows, s.rows);  // reuses storage for equal batch sizes
    compute(s.rows, data.labels(rows));
  }
}

ComputeCost LeastSquares::gradient_cost(Index batch) const {
  const double d = double(dimension());
  return {4.0 * double(batch) * d + 2.0 * d, 0.0};
}

void LeastSquares::prox(Vector& w, double step) const {
  if (w.size() != dimension()) throw std::invalid_argument("least squares: prox on wrong size");
  const double t = step * reg_.l1;
  if (t <= 0) return;
  // Soft-thresholding: w_k ← sgn(w_k)·max(|w_k| − t, 0), bias untouched.
  auto wf = w.head(features_);
  wf = (wf.array().sign() * (wf.array().abs() - t).max(0.0)).matrix();
}

Vector LeastSquares::initial_point(std::mt19937_64& rng) const {
  Vector w = Vector::Zero(dimension());
  if (init_.kind == InitOptions::Kind::normal) fill_normal(w, init_.std, rng);
  return w;
}

}  // namespace dlsim::models
