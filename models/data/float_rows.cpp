// float32 row kernels (float_rows.hpp). SSE2 (every x86-64) converts two floats to two
// doubles per instruction; elsewhere the same sums run in plain C++, in the same order.
#include "models/data/float_rows.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#include <xmmintrin.h>
#endif

namespace dlsim::models {

void widen_floats(const float* from, double* to, std::int64_t n) {
  std::int64_t i = 0;
#if defined(__SSE2__)
  for (; i + 4 <= n; i += 4) {
    const __m128 four = _mm_loadu_ps(from + i);
    _mm_storeu_pd(to + i, _mm_cvtps_pd(four));
    _mm_storeu_pd(to + i + 2, _mm_cvtps_pd(_mm_movehl_ps(four, four)));
  }
#endif
  for (; i < n; ++i) to[i] = double(from[i]);
}

namespace {

constexpr int kRows = 8;  // rows summed at once: eight streams keep the memory system busy

// Sums of `count` rows (count ≤ kRows) of x against w. Per row, in blocks of four
// positions j..j+3: a0 += x_j w_j + x_{j+2} w_{j+2}, a1 += x_{j+1} w_{j+1} + x_{j+3} w_{j+3};
// then a0 + a1, then the tail in order. `next`, when not null, is the next block of
// rows, fetched into the cache while this one is summed.
template <int count>
void rows_times(const float* x, std::int64_t cols, const double* w, double* z, const float* next) {
  std::int64_t j = 0;
  double sum[count];
#if defined(__SSE2__)
  __m128d acc[count];
  for (int r = 0; r < count; ++r) acc[r] = _mm_setzero_pd();
  for (; j + 4 <= cols; j += 4) {
    const __m128d w_low = _mm_loadu_pd(w + j), w_high = _mm_loadu_pd(w + j + 2);
    for (int r = 0; r < count; ++r) {
      if (next && j % 16 == 0)  // one 64-byte line of the next block's row r
        _mm_prefetch(reinterpret_cast<const char*>(next + r * cols + j), _MM_HINT_T0);
      const __m128 four = _mm_loadu_ps(x + r * cols + j);
      const __m128d low = _mm_mul_pd(_mm_cvtps_pd(four), w_low);
      const __m128d high = _mm_mul_pd(_mm_cvtps_pd(_mm_movehl_ps(four, four)), w_high);
      acc[r] = _mm_add_pd(acc[r], _mm_add_pd(low, high));
    }
  }
  for (int r = 0; r < count; ++r)
    sum[r] = _mm_cvtsd_f64(acc[r]) + _mm_cvtsd_f64(_mm_unpackhi_pd(acc[r], acc[r]));
#else
  (void)next;
  for (int r = 0; r < count; ++r) {
    const float* row = x + r * cols;
    double a0 = 0, a1 = 0;
    std::int64_t k = 0;
    for (; k + 4 <= cols; k += 4) {
      a0 += double(row[k]) * w[k] + double(row[k + 2]) * w[k + 2];
      a1 += double(row[k + 1]) * w[k + 1] + double(row[k + 3]) * w[k + 3];
    }
    sum[r] = a0 + a1;
    j = k;
  }
#endif
  for (int r = 0; r < count; ++r) {
    double s = sum[r];
    for (std::int64_t k = j; k < cols; ++k) s += double(x[r * cols + k]) * w[k];
    z[r] = s;
  }
}

}  // namespace

void float_rows_times(const float* x, std::int64_t rows, std::int64_t cols, const double* w,
                      double* z) {
  std::int64_t i = 0;
  for (; i + kRows <= rows; i += kRows) {
    const float* next = i + 2 * kRows <= rows ? x + (i + kRows) * cols : nullptr;
    rows_times<kRows>(x + i * cols, cols, w, z + i, next);
  }
  for (; i < rows; ++i) rows_times<1>(x + i * cols, cols, w, z + i, nullptr);
}

}  // namespace dlsim::models
