// Helpers every data objective's hot path shares: checking batch row indices and
// gathering the batch's rows into one contiguous block (once per gradient), so that
// everything after is a matrix product (GEMM) over the batch, with no per-sample loop.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Throws unless every row lies in [0, n) and the batch is not empty.
inline void check_batch(std::span<const Index> rows, Index n, const char* who) {
  if (rows.empty()) throw std::invalid_argument(std::string(who) + ": gradient on an empty batch");
  bool in_range = true;
  for (const Index r : rows) in_range &= r >= 0 && r < n;
  if (!in_range) throw std::out_of_range(std::string(who) + ": batch row out of range");
}

/// Copies the feature rows and labels of `rows` into `x` and `y` (their storage is
/// reused between calls of equal batch size).
/// A row range [begin, end) of a data set of `n` rows (Objective::data_sums).
inline void check_row_range(Index begin, Index end, Index n, const char* who) {
  if (begin < 0 || begin > end || end > n)
    throw std::invalid_argument(std::string(who) + ": row range [" + std::to_string(begin) + ", " +
                                std::to_string(end) + ") is not within the " + std::to_string(n) +
                                " rows of the data set");
}

inline void gather_batch(const Dataset& data, std::span<const Index> rows, Matrix& x, Vector& y) {
  data.features.gather(rows, x);
  y = data.labels(rows);
}

inline void check_features(const Dataset& data, Index features, const char* who) {
  if (data.feature_count() != features)
    throw std::invalid_argument(std::string(who) + ": data has " +
                                std::to_string(data.feature_count()) + " features, model expects " +
                                std::to_string(features));
  if (data.size() == 0) throw std::invalid_argument(std::string(who) + ": empty data set");
}

inline void check_size(const Vector& w, Index dimension, const char* who) {
  if (w.size() != dimension)
    throw std::invalid_argument(std::string(who) + ": parameter vector has " +
                                std::to_string(w.size()) + " entries, expected " +
                                std::to_string(dimension));
}

/// prox of step·λ1||·||₁ on a block: soft-thresholding sgn(v)·max(|v| − t, 0).
template <class Block>
void soft_threshold(Block&& v, double t) {
  if (t <= 0) return;
  v = (v.array().sign() * (v.array().abs() - t).max(0.0)).matrix();
}

}  // namespace dlsim::models
