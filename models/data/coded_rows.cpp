// Byte-coded row kernels (coded_rows.hpp): SSE2 packets of two doubles as Eigen's, or the
// same sums lane by lane in plain C++ elsewhere.
#include "models/data/coded_rows.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace dlsim::models {

void widen_codes(const std::uint8_t* codes, const double* table, double* to, std::int64_t n) {
  for (std::int64_t i = 0; i < n; ++i) to[i] = table[codes[i]];
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

void coded_rows_times(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                      const double* table, const double* w, double* z) {
  std::int64_t i = 0;
  for (; i + kRows <= rows; i += kRows) rows_times<kRows>(codes + i * cols, cols, table, w, z + i);
  for (; i < rows; ++i) rows_times<1>(codes + i * cols, cols, table, w, z + i);
}

}  // namespace dlsim::models
