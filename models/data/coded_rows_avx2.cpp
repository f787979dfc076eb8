// The AVX2 byte-code kernels (coded_rows.hpp): the AVX-512 ones' method
// (coded_rows_avx512.cpp) four doubles wide. Each value is computed from its code by the
// table's formula, value = fma(c, hi, c · lo), and the sums keep the portable kernel's
// order exactly.
//
// Converting a code: its byte goes into the low byte of a 64-bit lane whose other bytes
// are those of 2^52, which makes the double 2^52 + c; subtracting 2^52 leaves c exactly.
// Summing as Eigen's SSE2 product does: a 256-bit register holds two rows' two lanes
// (row r's lane 0 and lane 1 in its low 128-bit half, row r + 1's in its high half); per
// pair of columns k, an in-lane byte shuffle brings each row's two codes of that pair into
// place (zeroing the other bytes), and one multiply and one add advance both rows' lanes
// by that pair, as _mm_mul_pd/_mm_add_pd would. This file is compiled with
// -ffp-contract=off (CMakeLists.txt): a product and the add after it must stay two
// roundings, never one fused multiply-add.
#include "models/data/coded_rows.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define DLSIM_AVX2 __attribute__((target("avx2,fma")))

namespace dlsim::models::coded_rows_detail {

namespace {

constexpr long long kTwo52Bits = 0x4330000000000000;  // the bits of the double 2^52
constexpr std::int64_t kBlockRows = 8;                // four registers of two rows
constexpr std::int64_t kStepCols = 16;                // a row's 16 codes per 128-bit load

// The values of four codes from `bits` (2^52 + code in each lane): the table's formula.
DLSIM_AVX2 inline __m256d values_of(__m256i bits, __m256d hi, __m256d lo) {
  const __m256d c = _mm256_sub_pd(_mm256_castsi256_pd(bits), _mm256_set1_pd(0x1p52));
  return _mm256_fmadd_pd(c, hi, _mm256_mul_pd(c, lo));
}

// Two rows' codes of columns [j, j + 16): row r in the low half, row r + 1 in the high.
DLSIM_AVX2 inline __m256i two_rows(const std::uint8_t* at, std::int64_t cols) {
  const __m128i first = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at));
  const __m128i second = _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + cols));
  return _mm256_inserti128_si256(_mm256_castsi128_si256(first), second, 1);
}

}  // namespace

DLSIM_AVX2 void widen_codes_avx2(const std::uint8_t* codes, const CodeTable& table, double* to,
                                 std::int64_t n) {
  const __m256i two52 = _mm256_set1_epi64x(kTwo52Bits);
  const __m256d hi = _mm256_set1_pd(table.hi), lo = _mm256_set1_pd(table.lo);
  std::int64_t i = 0;
  for (; i + 4 <= n; i += 4) {
    std::int32_t four;
    __builtin_memcpy(&four, codes + i, sizeof four);
    const __m256i bits = _mm256_or_si256(_mm256_cvtepu8_epi64(_mm_cvtsi32_si128(four)), two52);
    _mm256_storeu_pd(to + i, values_of(bits, hi, lo));
  }
  for (; i < n; ++i) to[i] = table.value[codes[i]];
}

DLSIM_AVX2 void rows_times_avx2(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                                const CodeTable& table, const double* w, double* z) {
  // pick[k]: bytes 0 and 8 of each 128-bit half take that row's codes 2k and 2k + 1 (the
  // column pair k of a step); every other byte is zeroed (control byte 0x80), and the OR
  // with 2^52's bits fills it.
  __m256i pick[kStepCols / 2];
  for (int k = 0; k < kStepCols / 2; ++k) {
    alignas(32) std::int8_t control[32];
    for (int b = 0; b < 32; ++b) control[b] = std::int8_t(0x80);
    for (int half = 0; half < 2; ++half) {
      control[16 * half] = std::int8_t(2 * k);
      control[16 * half + 8] = std::int8_t(2 * k + 1);
    }
    pick[k] = _mm256_load_si256(reinterpret_cast<const __m256i*>(control));
  }
  const __m256i two52 = _mm256_set1_epi64x(kTwo52Bits);
  const __m256d hi = _mm256_set1_pd(table.hi), lo = _mm256_set1_pd(table.lo);
  const std::int64_t vector_cols = cols / kStepCols * kStepCols;

  std::int64_t i = 0;
  for (; i + kBlockRows <= rows; i += kBlockRows) {
    const std::uint8_t* block = codes + i * cols;
    // The next block is read ahead, two cache lines a step (8 · cols bytes in cols / 16
    // steps): eight rows 784 bytes apart are more streams than the hardware follows.
    const std::uint8_t* ahead = i + 2 * kBlockRows <= rows ? block + kBlockRows * cols : block;
    __m256d acc[kBlockRows / 2];
    for (auto& a : acc) a = _mm256_setzero_pd();
    for (std::int64_t j = 0; j < vector_cols; j += kStepCols) {
      _mm_prefetch(reinterpret_cast<const char*>(ahead + 8 * j), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(ahead + 8 * j + 64), _MM_HINT_T0);
      __m256i codes2[kBlockRows / 2];
      for (int b = 0; b < kBlockRows / 2; ++b) codes2[b] = two_rows(block + 2 * b * cols + j, cols);
      for (int k = 0; k < kStepCols / 2; ++k) {
        const __m256d pair =  // (w[j + 2k], w[j + 2k + 1]) in both halves
            _mm256_broadcast_pd(reinterpret_cast<const __m128d*>(w + j + 2 * k));
        for (int b = 0; b < kBlockRows / 2; ++b) {
          const __m256i bits = _mm256_or_si256(_mm256_shuffle_epi8(codes2[b], pick[k]), two52);
          acc[b] = _mm256_add_pd(acc[b], _mm256_mul_pd(values_of(bits, hi, lo), pair));
        }
      }
    }
    // The columns left after the last whole step, lane by lane as the portable kernel.
    alignas(32) double lanes[2 * kBlockRows];
    for (int b = 0; b < kBlockRows / 2; ++b) _mm256_store_pd(lanes + 4 * b, acc[b]);
    finish_rows(block, kBlockRows, cols, vector_cols, lanes, table, w, z + i);
  }
  if (i < rows) rows_times_portable(codes + i * cols, rows - i, cols, table, w, z + i);
}

}  // namespace dlsim::models::coded_rows_detail

#else  // no x86-64 vector kernels: the portable ones are used

namespace dlsim::models::coded_rows_detail {

void widen_codes_avx2(const std::uint8_t* codes, const CodeTable& table, double* to,
                      std::int64_t n) {
  widen_codes_portable(codes, table, to, n);
}
void rows_times_avx2(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                     const CodeTable& table, const double* w, double* z) {
  rows_times_portable(codes, rows, cols, table, w, z);
}

}  // namespace dlsim::models::coded_rows_detail

#endif
