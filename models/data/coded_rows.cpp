// Byte-coded row kernels (coded_rows.hpp): the code table's formula, the portable kernels
// (SSE2 packets of two doubles as Eigen's, or the same sums lane by lane in plain C++
// elsewhere), and the choice between them and the AVX-512 and AVX2 ones
// (coded_rows_avx512.cpp, coded_rows_avx2.cpp).
#include "models/data/coded_rows.hpp"

#include "models/cpu/instruction_set.hpp"

#include <bit>
#include <cmath>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dlsim::models {

CodeTable::CodeTable(const std::array<double, 256>& values) : value(values) {
  if (!(values[1] > 0) || !std::isfinite(values[1])) return;
  const double d = std::nearbyint(1 / values[1]);
  if (!(d >= 1 && d <= double(1 << 20))) return;
  const double h = 1 / d, l = std::fma(-h, d, 1.0) / d;
  for (int c = 0; c < 256; ++c)
    if (std::bit_cast<std::uint64_t>(std::fma(double(c), h, double(c) * l)) !=
        std::bit_cast<std::uint64_t>(values[std::size_t(c)]))
      return;
  hi = h;
  lo = l;
}

namespace coded_rows_detail {

void widen_codes_portable(const std::uint8_t* codes, const CodeTable& table, double* to,
                          std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) to[i] = table.value[codes[i]];
}

namespace {

constexpr int kRows = 8;  // rows summed at once: w's pair is loaded once for eight rows

template <int count>
void rows_times(const std::uint8_t* codes, std::int64_t cols, const double* table, const double* w,
                double* z) {
  std::int64_t j = 0;
  double sum[count];
#if defined(__SSE2__)
  __m128d acc[count];  // (lane 0, lane 1) of each row, as Eigen's packet
  for (int r = 0; r < count; ++r) acc[r] = _mm_setzero_pd();
  for (; j + 2 <= cols; j += 2) {
    const __m128d pair = _mm_loadu_pd(w + j);
    for (int r = 0; r < count; ++r) {
      const std::uint8_t* row = codes + r * cols + j;
      const __m128d x = _mm_set_pd(table[row[1]], table[row[0]]);
      acc[r] = _mm_add_pd(acc[r], _mm_mul_pd(x, pair));
    }
  }
  for (int r = 0; r < count; ++r)
    sum[r] = _mm_cvtsd_f64(acc[r]) + _mm_cvtsd_f64(_mm_unpackhi_pd(acc[r], acc[r]));
#else
  for (int r = 0; r < count; ++r) {
    const std::uint8_t* row = codes + r * cols;
    double lane0 = 0.0, lane1 = 0.0;
    std::int64_t k = 0;
    for (; k + 2 <= cols; k += 2) {
      lane0 += table[row[k]] * w[k];
      lane1 += table[row[k + 1]] * w[k + 1];
    }
    sum[r] = lane0 + lane1;
    j = k;
  }
#endif
  for (int r = 0; r < count; ++r) {
    double s = sum[r];
    for (std::int64_t k = j; k < cols; ++k) s += table[codes[r * cols + k]] * w[k];
    z[r] = 0.0 + s;
  }
}

}  // namespace

void finish_rows(const std::uint8_t* block, std::int64_t rows, std::int64_t cols,
                 std::int64_t from_col, const double* lanes, const CodeTable& table,
                 const double* w, double* z) {
  for (std::int64_t r = 0; r < rows; ++r) {
    const std::uint8_t* row = block + r * cols;
    double lane0 = lanes[2 * r], lane1 = lanes[2 * r + 1];
    std::int64_t j = from_col;
    for (; j + 2 <= cols; j += 2) {
      lane0 += table.value[row[j]] * w[j];
      lane1 += table.value[row[j + 1]] * w[j + 1];
    }
    double sum = lane0 + lane1;
    if (j < cols) sum += table.value[row[j]] * w[j];
    z[r] = 0.0 + sum;
  }
}

void rows_times_portable(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                         const CodeTable& table, const double* w, double* z) {
  const double* values = table.value.data();
  std::int64_t i = 0;
  for (; i + kRows <= rows; i += kRows) rows_times<kRows>(codes + i * cols, cols, values, w, z + i);
  for (; i < rows; ++i) rows_times<1>(codes + i * cols, cols, values, w, z + i);
}

}  // namespace coded_rows_detail

namespace {
// The widest kernels the processor has, when the table has a formula; else the portable.
InstructionSet kernels_for(const CodeTable& table) {
  return table.has_formula() ? best_instruction_set() : InstructionSet::baseline;
}
}  // namespace

void widen_codes(const std::uint8_t* codes, const CodeTable& table, double* to, std::int64_t n) {
  switch (kernels_for(table)) {
    case InstructionSet::avx512:
      return coded_rows_detail::widen_codes_avx512(codes, table, to, n);
    case InstructionSet::avx2:
      return coded_rows_detail::widen_codes_avx2(codes, table, to, n);
    default:
      return coded_rows_detail::widen_codes_portable(codes, table, to, n);
  }
}

void coded_rows_times(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                      const CodeTable& table, const double* w, double* z) {
  switch (kernels_for(table)) {
    case InstructionSet::avx512:
      return coded_rows_detail::rows_times_avx512(codes, rows, cols, table, w, z);
    case InstructionSet::avx2:
      return coded_rows_detail::rows_times_avx2(codes, rows, cols, table, w, z);
    default:
      return coded_rows_detail::rows_times_portable(codes, rows, cols, table, w, z);
  }
}

}  // namespace dlsim::models
