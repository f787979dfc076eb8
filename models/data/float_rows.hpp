// Kernels over float32 feature rows (FeatureMatrix with data.storage float32) that do
// the math in doubles without a converted copy: every float is widened exactly to a
// double as it is read. Results are deterministic but sum in their own order (not
// Eigen's), so they equal the float64 path only up to rounding.
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
