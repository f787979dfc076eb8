// Test helpers for objectives: random data, central finite differences of the loss, and
// the relative error used by every gradient check.
#pragma once

#include <numeric>
#include <random>
#include <vector>

#include "models/objectives/objective.hpp"

namespace dlsim::test {

using models::Dataset;
using models::Index;
using models::Vector;

inline Vector random_vector(Index d, std::uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  Vector v(d);
  for (Index k = 0; k < d; ++k) v(k) = normal(rng);
  return v;
}

/// n Gaussian rows; labels uniform over `classes` class indices (0..C−1).
inline Dataset classification_data(Index n, Index d, int classes, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_int_distribution<int> label(0, classes - 1);
  Dataset data;
  data.features.owned().resize(n, d);
  data.labels.resize(n);
  for (Index i = 0; i < n; ++i) {
    for (Index k = 0; k < d; ++k) data.features.owned()(i, k) = normal(rng);
    data.labels(i) = label(rng);
  }
  data.classes = classes;
  return data;
}

inline std::vector<Index> all_rows(Index n) {
  std::vector<Index> rows(static_cast<std::size_t>(n));
  std::iota(rows.begin(), rows.end(), Index(0));
  return rows;
}

/// The rows of `data` listed in `rows`, as a data set of their own.
inline Dataset subset(const Dataset& data, const std::vector<Index>& rows) {
  Dataset out;
  out.features = data.features.view()(rows, Eigen::all);
  out.labels = data.labels(rows);
  out.classes = data.classes;
  return out;
}

/// Central differences of the full objective f.loss on `data` (h = 1e-6).
inline Vector numeric_gradient(const models::Objective& f, const Vector& w, const Dataset& data,
                               double h = 1e-6) {
  Vector g(w.size());
  for (Index k = 0; k < w.size(); ++k) {
    Vector plus = w, minus = w;
    plus(k) += h;
    minus(k) -= h;
    g(k) = (f.loss(plus, data) - f.loss(minus, data)) / (2 * h);
  }
  return g;
}

/// ||a − b|| / max(||a||, ||b||).
inline double relative_error(const Vector& a, const Vector& b) {
  return (a - b).norm() / std::max(a.norm(), b.norm());
}

}  // namespace dlsim::test
