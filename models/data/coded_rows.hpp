// Kernels over byte-coded float64 rows (FeatureMatrix::of_codes): every value is
// table[code], one byte per value instead of eight. For data whose values are 8-bit codes
// (image pixels p/255) this is lossless, and these kernels give the float64 storage's
// results bit for bit: rows_times sums exactly as Eigen 3.4's row-major matrix-vector
// product does with SSE2 (every x86-64 build of dlsim), so an evaluation streams an
// eighth of the bytes and gets the same numbers.
//
// Three implementations, chosen at run time, give the same bits: a portable one that looks
// the values up (SSE2 packets on x86-64), and two for processors with AVX-512 (F and BW)
// or AVX2 (with FMA) that compute each value from its code instead, when the table allows
// it (a CodeTable with a formula): eight values per instruction, rows four at a time
// (coded_rows_avx512.cpp), or four values, rows two at a time (coded_rows_avx2.cpp).
#pragma once

#include <array>
#include <cstdint>

namespace dlsim::models {

/// The 256 values of byte codes. When value[c] is c / d for an integer d, rounded to the
/// nearest double (pixels: d = 255), and the formula fma(c, hi, c · lo) with hi = 1/d and
/// lo = (1 − hi·d)/d reproduces all 256 values bit for bit (checked here, value by value),
/// `hi` and `lo` are kept and the vector kernels compute values rather than look them up.
struct CodeTable {
  std::array<double, 256> value{};
  double hi = 0, lo = 0;  // the formula's constants; both 0 when no formula is exact

  CodeTable() = default;
  explicit CodeTable(const std::array<double, 256>& values);
  bool has_formula() const { return hi != 0; }
};

/// to[i] = table.value[codes[i]] for n values.
void widen_codes(const std::uint8_t* codes, const CodeTable& table, double* to, std::int64_t n);

/// z[i] = Σ_j value[codes[i·cols + j]] · w[j] for `rows` >= 2 rows, summed as
/// Eigen::internal::general_matrix_vector_product<RowMajor> sums with packets of two
/// doubles (Eigen/src/Core/products/GeneralMatrixVector.h): per row, lane 0 collects
/// columns 0, 2, 4, ... and lane 1 columns 1, 3, 5, ... (a product, then an add), the two
/// lanes are added, the odd last column is added after them, and the row's result is
/// 0 + 1 · that (the product writes into a zeroed vector with alpha = 1). A single row is
/// not a matrix-vector product for Eigen (it takes a dot product): callers widen it.
void coded_rows_times(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                      const CodeTable& table, const double* w, double* z);

/// The implementations by name, for tests and benchmarks (the functions above pick one).
/// The AVX-512 and AVX2 ones require that instruction set (models/cpu/instruction_set.hpp)
/// and table.has_formula().
namespace coded_rows_detail {
void widen_codes_portable(const std::uint8_t* codes, const CodeTable& table, double* to,
                          std::int64_t n);
void widen_codes_avx512(const std::uint8_t* codes, const CodeTable& table, double* to,
                        std::int64_t n);
void widen_codes_avx2(const std::uint8_t* codes, const CodeTable& table, double* to,
                      std::int64_t n);
/// The vector kernels' last step: rows [0, rows) of `block` have summed their columns
/// [0, from_col) into lanes[2r] and lanes[2r + 1] (Eigen's two lanes); the rest is summed
/// into them lane by lane as the portable kernel does, and z[r] = 0 + lane 0 + lane 1 (+ the
/// odd last column).
void finish_rows(const std::uint8_t* block, std::int64_t rows, std::int64_t cols,
                 std::int64_t from_col, const double* lanes, const CodeTable& table,
                 const double* w, double* z);
void rows_times_portable(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                         const CodeTable& table, const double* w, double* z);
void rows_times_avx512(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                       const CodeTable& table, const double* w, double* z);
void rows_times_avx2(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                     const CodeTable& table, const double* w, double* z);
}  // namespace coded_rows_detail

}  // namespace dlsim::models
