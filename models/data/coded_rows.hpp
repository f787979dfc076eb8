// Kernels over byte-coded float64 rows (FeatureMatrix::of_codes): every value is
// table[code], one byte per value instead of eight. For data whose values are 8-bit codes
// (image pixels p/255) this is lossless, and these kernels give the float64 storage's
// results bit for bit: rows_times sums exactly as Eigen 3.4's row-major matrix-vector
// product does with SSE2 (every x86-64 build of dlsim), so an evaluation streams an
// eighth of the bytes and gets the same numbers.
#pragma once

#include <cstdint>

namespace dlsim::models {

/// to[i] = table[codes[i]] for n values.
void widen_codes(const std::uint8_t* codes, const double* table, double* to, std::int64_t n);

/// z[i] = Σ_j table[codes[i·cols + j]] · w[j] for `rows` >= 2 rows, summed as
/// Eigen::internal::general_matrix_vector_product<RowMajor> sums with packets of two
/// doubles (Eigen/src/Core/products/GeneralMatrixVector.h): per row, lane 0 collects
/// columns 0, 2, 4, ... and lane 1 columns 1, 3, 5, ... (a product, then an add), the two
/// lanes are added, the odd last column is added after them, and the row's result is
/// 0 + 1 · that (the product writes into a zeroed vector with alpha = 1). A single row is
/// not a matrix-vector product for Eigen (it takes a dot product): callers widen it.
void coded_rows_times(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                      const double* table, const double* w, double* z);

}  // namespace dlsim::models
