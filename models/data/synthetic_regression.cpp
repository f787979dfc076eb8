// synthetic-regression: b = A w* + noise·ε, rows of A ~ N(0, Σ), w* ~ N(0, I), ε ~ N(0, 1),
// Σ = diag(λ_0..λ_{d−1}) with λ_k = condition^(−k/(d−1)) (λ_0 = 1 when d = 1), so the
// population covariance has condition number `condition`.
// Draw order (fixed, for reproducibility): w*, then A row by row, then ε.
#include <cmath>
#include <stdexcept>

#include "models/data/sources.hpp"
#include "rng/distributions.hpp"

namespace dlsim::models {

Dataset synthetic_regression(const SyntheticRegressionOptions& options, std::mt19937_64& rng) {
  const Index n = options.samples;
  const Index d = options.features;
  if (n < 1) throw std::invalid_argument("synthetic regression: samples must be >= 1");
  if (d < 1) throw std::invalid_argument("synthetic regression: features must be >= 1");
  if (!(options.noise >= 0))
    throw std::invalid_argument("synthetic regression: noise must be >= 0");
  if (!(options.condition >= 1)) {
    throw std::invalid_argument("synthetic regression: condition must be >= 1");
  }

  Vector scale(d);  // standard deviation of each column, √λ_k
  for (Index k = 0; k < d; ++k) {
    const double exponent = d == 1 ? 0.0 : -double(k) / double(d - 1);
    scale(k) = std::sqrt(std::pow(options.condition, exponent));
  }

  rng::Normal normal(0.0, 1.0);
  Vector w_star(d);
  for (Index k = 0; k < d; ++k) w_star(k) = normal(rng);

  Dataset data;
  data.features.owned().resize(n, d);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < d; ++k) data.features.owned()(i, k) = scale(k) * normal(rng);
  }
  data.labels.noalias() = data.features.owned() * w_star;
  for (Index i = 0; i < n; ++i) data.labels(i) += options.noise * normal(rng);
  data.classes = 0;
  return data;
}

}  // namespace dlsim::models
