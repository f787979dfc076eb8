// The AVX-512 (F and BW) byte-code kernels (coded_rows.hpp): each value is computed from
// its code by the table's formula, value = fma(c, hi, c · lo), eight at a time, instead of
// being looked up one by one; the sums keep the portable kernel's order exactly.
//
// Converting a code: its byte goes into the low byte of a 64-bit lane whose other bytes
// are those of 2^52, which makes the double 2^52 + c; subtracting 2^52 leaves c exactly.
// Summing as Eigen's SSE2 product does: a 512-bit register holds four rows' two lanes
// (row r's lane 0 and lane 1 in its 128-bit part r); per pair of columns k, an in-lane
// byte shuffle brings each row's two codes of that pair into place, and one multiply and
// one add advance all four rows' lanes by that pair, as _mm_mul_pd/_mm_add_pd would.
// This file is compiled with -ffp-contract=off (CMakeLists.txt): a product and the add
// after it must stay two roundings, never one fused multiply-add.
#include "models/data/coded_rows.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

// GCC 12 reports the undefined upper lanes some of its own intrinsics start from
// (_mm512_cvtepu8_epi64, _mm512_broadcast_f32x4) as maybe uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#define DLSIM_AVX512 __attribute__((target("avx512f,avx512bw")))

namespace dlsim::models::coded_rows_detail {

namespace {

constexpr long long kTwo52Bits = 0x4330000000000000;  // the bits of the double 2^52
constexpr std::int64_t kBlockRows = 8;                // two registers of four rows
constexpr std::int64_t kStepCols = 16;                // a row's 16 codes per 128-bit load

// The values of eight codes from `bits` (2^52 + code in each lane): the table's formula.
DLSIM_AVX512 inline __m512d values_of(__m512i bits, __m512d hi, __m512d lo) {
  const __m512d c = _mm512_sub_pd(_mm512_castsi512_pd(bits), _mm512_set1_pd(0x1p52));
  return _mm512_fmadd_pd(c, hi, _mm512_mul_pd(c, lo));
}

// Four rows' codes of columns [j, j + 16): row r in 128-bit part r.
DLSIM_AVX512 inline __m512i four_rows(const std::uint8_t* at, std::int64_t cols) {
  const auto load = [&](int r) {
    return _mm_loadu_si128(reinterpret_cast<const __m128i*>(at + r * cols));
  };
  __m512i rows = _mm512_zextsi128_si512(load(0));
  rows = _mm512_inserti32x4(rows, load(1), 1);
  rows = _mm512_inserti32x4(rows, load(2), 2);
  return _mm512_inserti32x4(rows, load(3), 3);
}

}  // namespace

DLSIM_AVX512 void widen_codes_avx512(const std::uint8_t* codes, const CodeTable& table, double* to,
                                     std::int64_t n) {
  const __m512i two52 = _mm512_set1_epi64(kTwo52Bits);
  const __m512d hi = _mm512_set1_pd(table.hi), lo = _mm512_set1_pd(table.lo);
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i eight = _mm_loadl_epi64(reinterpret_cast<const __m128i*>(codes + i));
    const __m512i bits = _mm512_or_si512(_mm512_cvtepu8_epi64(eight), two52);
    _mm512_storeu_pd(to + i, values_of(bits, hi, lo));
  }
  for (; i < n; ++i) to[i] = table.value[codes[i]];
}

DLSIM_AVX512 void rows_times_avx512(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                                    const CodeTable& table, const double* w, double* z) {
  // pick[k]: bytes 0 and 8 of each 128-bit part take that row's codes 2k and 2k + 1 (the
  // column pair k of a step); the merge mask keeps 2^52's bytes everywhere else.
  __m512i pick[kStepCols / 2];
  for (int k = 0; k < kStepCols / 2; ++k) {
    alignas(64) std::int8_t control[64] = {};
    for (int r = 0; r < 4; ++r) {
      control[16 * r] = std::int8_t(2 * k);
      control[16 * r + 8] = std::int8_t(2 * k + 1);
    }
    pick[k] = _mm512_load_si512(control);
  }
  constexpr __mmask64 kLowBytes = 0x0101010101010101;  // byte 0 of every 64-bit lane
  const __m512i two52 = _mm512_set1_epi64(kTwo52Bits);
  const __m512d hi = _mm512_set1_pd(table.hi), lo = _mm512_set1_pd(table.lo);
  const std::int64_t vector_cols = cols / kStepCols * kStepCols;

  std::int64_t i = 0;
  for (; i + kBlockRows <= rows; i += kBlockRows) {
    const std::uint8_t* block = codes + i * cols;
    // The next block is read ahead, two cache lines a step (8 · cols bytes in cols / 16
    // steps): eight rows 784 bytes apart are more streams than the hardware follows.
    const std::uint8_t* ahead = i + 2 * kBlockRows <= rows ? block + kBlockRows * cols : block;
    __m512d acc[2] = {_mm512_setzero_pd(), _mm512_setzero_pd()};
    for (std::int64_t j = 0; j < vector_cols; j += kStepCols) {
      _mm_prefetch(reinterpret_cast<const char*>(ahead + 8 * j), _MM_HINT_T0);
      _mm_prefetch(reinterpret_cast<const char*>(ahead + 8 * j + 64), _MM_HINT_T0);
      const __m512i codes4[2] = {four_rows(block + j, cols), four_rows(block + 4 * cols + j, cols)};
      for (int k = 0; k < kStepCols / 2; ++k) {
        const __m512d pair =  // (w[j + 2k], w[j + 2k + 1]) in every 128-bit part
            _mm512_castps_pd(_mm512_broadcast_f32x4(_mm_castpd_ps(_mm_loadu_pd(w + j + 2 * k))));
        for (int b = 0; b < 2; ++b) {
          const __m512i bits = _mm512_mask_shuffle_epi8(two52, kLowBytes, codes4[b], pick[k]);
          acc[b] = _mm512_add_pd(acc[b], _mm512_mul_pd(values_of(bits, hi, lo), pair));
        }
      }
    }
    // The columns left after the last whole step, lane by lane as the portable kernel.
    alignas(64) double lanes[2 * kBlockRows];
    _mm512_store_pd(lanes, acc[0]);
    _mm512_store_pd(lanes + 8, acc[1]);
    finish_rows(block, kBlockRows, cols, vector_cols, lanes, table, w, z + i);
  }
  if (i < rows) rows_times_portable(codes + i * cols, rows - i, cols, table, w, z + i);
}

}  // namespace dlsim::models::coded_rows_detail

#else  // no x86-64 vector kernels: the portable ones are used

namespace dlsim::models::coded_rows_detail {

void widen_codes_avx512(const std::uint8_t* codes, const CodeTable& table, double* to,
                        std::int64_t n) {
  widen_codes_portable(codes, table, to, n);
}
void rows_times_avx512(const std::uint8_t* codes, std::int64_t rows, std::int64_t cols,
                       const CodeTable& table, const double* w, double* z) {
  rows_times_portable(codes, rows, cols, table, w, z);
}

}  // namespace dlsim::models::coded_rows_detail

#endif
