// Kernels over float32 feature rows (FeatureMatrix with data.storage float32): widening
// rows to doubles, and rows times a vector in doubles without a widened copy (every
// float is widened exactly as it is read). The product is deterministic but sums in its
// own order (not Eigen's), so it equals the float64 path only up to rounding.
#pragma once

#include <cstdint>

namespace dlsim::models {

/// Widens n floats to doubles: to[i] = from[i].
void widen_floats(const float* from, double* to, std::int64_t n);

/// z[i] = Σ_j x[i·cols + j] · w[j] for the `rows` rows of the row-major float matrix x,
/// summed in doubles, eight rows at a time (float_rows.cpp says in which order).
void float_rows_times(const float* x, std::int64_t rows, std::int64_t cols, const double* w,
                      double* z);

}  // namespace dlsim::models
