// top-k's selection: the k-th largest magnitude key t of a vector (for d <= 65,536 a radix
// select on a window of bins below the largest key, then a ranking of the boundary bin's
// keys; above, a radix histogram on the top 16 bits of the key, then nth_element inside the
// boundary bin), and the positions of the keys >= t in index order (top_k.cpp keeps those
// and the first (k − #{key > t}) keys == t: lower index wins). On processors with AVX-512
// (models/cpu/instruction_set.hpp, checked at run time) the small-d select's key,
// boundary-bin and ranking steps, and the kept positions' pass, go eight values at a time,
// with AVX2 four; the portable versions stay for every other processor, and tests run
// every version the processor has side by side.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <functional>
#include <stdexcept>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#endif

#include "models/compress/sparsifiers.hpp"
#include "models/cpu/instruction_set.hpp"

namespace dlsim::models {

std::uint64_t magnitude_key(double x) {
  return std::bit_cast<std::uint64_t>(x) & 0x7fffffffffffffffULL;
}

namespace {

// Radix selection for small d (the hundreds to tens of thousands of a small model), free of
// data-dependent branches except at bin boundaries: nth_element's comparisons mispredict
// on inputs that change each message (measured 6.3 µs per top-k message at d = 784,
// against 1.9 µs with a radix select; bench/compress_bench.cpp encode_into).
//  1. The keys, their largest and their smallest non-zero one (AVX-512: eight at a time).
//     When at least k keys are >= half the largest, only those are kept (in place) and
//     take part below; else the keys are computed again and all of them do (k ≤ d/8 only).
//  2. A histogram of key >> 48 (the exponent and four mantissa bits: sixteen bins per power
//     of two) in a window of 1,024 bins ending at the largest key's; keys below the window
//     (more than about 2^63 times smaller than the largest, zeros) all count in bin 0. Four
//     interleaved histograms (position i into histogram i mod 4): magnitudes crowd into a
//     few bins, and increments of one counter would wait on each other. A walk down from
//     the top bin finds the one holding rank k.
//  3. That bin's keys are kept, in place (AVX-512: compressed eight at a time). Up to 64
//     of them are ranked against each other (AVX-512: eight comparisons at once); more are
//     narrowed 8 bits at a time first. Rank k in bin 0 narrows bin 0's keys from the top
//     bit down the same way.
// With two bins per power of two over all 2,048 exponents (the previous version) the
// boundary bin held 124 keys on average in case (f), and each of its 8-bit passes walked
// 140 digits; with sixteen, bench/compress_bench.cpp's top-k of 784 takes 1.06 µs instead
// of 1.21 (eight: 1.21, thirty-two: 1.05). The histograms are all zero between calls: only the bins
// between the smallest non-zero and the largest key's are cleared at the end, and bin 0, or, when
// that range is wider than there are keys, each key's own bin.
constexpr int kSmallShift = 48;
constexpr std::size_t kWindow = 1024;  // bins of each histogram
constexpr int kWays = 4;               // interleaved histograms
constexpr std::size_t kRanked = 64;    // candidates ranked against each other

struct KeyRange {
  std::uint64_t largest = 0, smallest_nonzero = ~std::uint64_t(0);
};

// Bin of a key: (key >> 48) − low + 1 inside the window, 0 below it.
struct Window {
  std::uint64_t low;  // the smallest key >> 48 with a bin of its own
  std::size_t bin(std::uint64_t key) const {
    const std::uint64_t v = key >> kSmallShift;
    return v >= low ? std::size_t(v - low + 1) : 0;
  }
};

Window window_below(std::uint64_t largest) {
  const std::uint64_t top = largest >> kSmallShift;
  return {top >= kWindow - 2 ? top - (kWindow - 2) : 0};
}

// Step 1: keys[i] = the magnitude key of x[i].
KeyRange keys_portable(const double* x, Eigen::Index d, std::uint64_t* keys) {
  KeyRange r;
  for (Eigen::Index i = 0; i < d; ++i) {
    const std::uint64_t a = magnitude_key(x[i]);
    keys[i] = a;
    r.largest = std::max(r.largest, a);
    r.smallest_nonzero = std::min(r.smallest_nonzero, a == 0 ? ~std::uint64_t(0) : a);
  }
  return r;
}

// Step 2's counting, into the four histograms h (kWays x kWindow).
void count_bins(const std::uint64_t* keys, Eigen::Index d, Window window, std::uint32_t* h) {
  Eigen::Index j = 0;
  for (; j + kWays <= d; j += kWays)
    for (int w = 0; w < kWays; ++w) ++h[std::size_t(w) * kWindow + window.bin(keys[j + w])];
  for (; j < d; ++j) ++h[std::size_t(j % kWays) * kWindow + window.bin(keys[j])];
}

// Which keys a compaction keeps: those of bin v, key >> 48 == v (step 3, bin > 0), or
// those >= v (step 1½).
enum class Keep { bin, at_least };

template <Keep kind>
bool keeps(std::uint64_t key, std::uint64_t v) {
  return kind == Keep::bin ? (key >> kSmallShift) == v : key >= v;
}

// Keeps the keys `kind` selects, in place, in order, from position j on (n of those before
// j were kept); returns how many are kept in all.
template <Keep kind>
std::size_t keep_portable(std::uint64_t* keys, Eigen::Index d, std::uint64_t v, Eigen::Index j = 0,
                          std::size_t n = 0) {
  for (; j < d; ++j) {
    const std::uint64_t key = keys[j];
    keys[n] = key;
    n += keeps<kind>(key, v) ? 1 : 0;
  }
  return n;
}

// Step 3 for bin 0: the keys below the window.
std::size_t keep_below(std::uint64_t* keys, Eigen::Index d, Window window) {
  std::size_t n = 0;
  for (Eigen::Index j = 0; j < d; ++j) {
    const std::uint64_t key = keys[j];
    keys[n] = key;
    n += window.bin(key) == 0 ? 1 : 0;
  }
  return n;
}

// Step 3's ranking: among keys[0, n), the r-th largest (1 ≤ r ≤ n), how many are larger
// and how many equal it.
KthKey rank_portable(const std::uint64_t* keys, std::size_t n, std::int64_t r) {
  for (std::size_t i = 0; i < n; ++i) {
    std::int64_t greater = 0, equal = 0;
    for (std::size_t j = 0; j < n; ++j) {
      greater += keys[j] > keys[i] ? 1 : 0;
      equal += keys[j] == keys[i] ? 1 : 0;
    }
    if (greater < r && r <= greater + equal) return {keys[i], greater, equal};
  }
  throw std::logic_error("top-k: no key of the requested rank");
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// GCC 12 reports the undefined lanes some of its own AVX-512 intrinsics start from
// (_mm512_max_epu64, _mm512_srli_epi64) as uninitialized.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif
__attribute__((target("avx512f"))) KeyRange keys_avx512(const double* x, Eigen::Index d,
                                                        std::uint64_t* keys) {
  const __m512i magnitude = _mm512_set1_epi64(0x7fffffffffffffffLL);
  __m512i largest = _mm512_setzero_si512(), smallest = _mm512_set1_epi64(-1);
  Eigen::Index i = 0;
  for (; i + 8 <= d; i += 8) {
    const __m512i key = _mm512_and_si512(_mm512_loadu_si512(x + i), magnitude);
    _mm512_storeu_si512(keys + i, key);
    largest = _mm512_max_epu64(largest, key);
    smallest = _mm512_mask_min_epu64(smallest, _mm512_test_epi64_mask(key, key), smallest, key);
  }
  KeyRange r{_mm512_reduce_max_epu64(largest), _mm512_reduce_min_epu64(smallest)};
  const KeyRange tail = keys_portable(x + i, d - i, keys + i);
  return {std::max(r.largest, tail.largest), std::min(r.smallest_nonzero, tail.smallest_nonzero)};
}

template <Keep kind>
__attribute__((target("avx512f"))) std::size_t keep_avx512(std::uint64_t* keys, Eigen::Index d,
                                                           std::uint64_t v) {
  const __m512i wanted = _mm512_set1_epi64(std::int64_t(v));
  std::size_t n = 0;
  Eigen::Index j = 0;
  for (; j + 8 <= d; j += 8) {  // writes at n <= j: the eight read are in a register
    const __m512i key = _mm512_loadu_si512(keys + j);
    const __mmask8 kept = kind == Keep::bin
                              ? _mm512_cmpeq_epu64_mask(_mm512_srli_epi64(key, kSmallShift), wanted)
                              : _mm512_cmpge_epu64_mask(key, wanted);
    _mm512_storeu_si512(keys + n, _mm512_maskz_compress_epi64(kept, key));
    n += std::size_t(std::popcount(unsigned(kept)));
  }
  return keep_portable<kind>(keys, d, v, j, n);
}

__attribute__((target("avx512f"))) KthKey rank_avx512(const std::uint64_t* keys, std::size_t n,
                                                      std::int64_t r) {
  for (std::size_t i = 0; i < n; ++i) {
    const __m512i key = _mm512_set1_epi64(std::int64_t(keys[i]));
    std::int64_t greater = 0, equal = 0;
    for (std::size_t j = 0; j < n; j += 8) {
      const auto lanes = __mmask8(n - j >= 8 ? 0xff : (1u << (n - j)) - 1);
      const __m512i other = _mm512_maskz_loadu_epi64(lanes, keys + j);
      greater += std::popcount(unsigned(_mm512_mask_cmpgt_epu64_mask(lanes, other, key)));
      equal += std::popcount(unsigned(_mm512_mask_cmpeq_epu64_mask(lanes, other, key)));
    }
    if (greater < r && r <= greater + equal) return {keys[i], greater, equal};
  }
  throw std::logic_error("top-k: no key of the requested rank");
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// The AVX2 versions: four keys at a time. AVX2 compares 64-bit integers as signed only,
// which is exact here: keys are magnitudes (< 2^63), and so is every bound compared with
// them. It has no compress either: a kept lane mask of four bits picks, from a table, the
// permutation that moves the kept keys to the front, and the whole register is stored.
#define DLSIM_AVX2 __attribute__((target("avx2,bmi2,popcnt")))

// For each mask of four kept 64-bit lanes, the 32-bit permutation that packs them first.
struct PackTable {
  alignas(32) std::int32_t lanes[16][8];
};
constexpr PackTable pack_table() {
  PackTable t{};
  for (int m = 0; m < 16; ++m) {
    int c = 0;
    for (int b = 0; b < 4; ++b)
      if (m >> b & 1) {
        t.lanes[m][2 * c] = 2 * b;
        t.lanes[m][2 * c + 1] = 2 * b + 1;
        ++c;
      }
  }
  return t;
}
constexpr PackTable kPack = pack_table();

// The four 64-bit lanes of `v` whose bits are set in `mask` (4 bits), packed first.
DLSIM_AVX2 inline __m256i pack(__m256i v, int mask) {
  return _mm256_permutevar8x32_epi32(
      v, _mm256_load_si256(reinterpret_cast<const __m256i*>(kPack.lanes[mask])));
}

// The sign bits of four 64-bit lanes.
DLSIM_AVX2 inline int lane_mask(__m256i v) {
  return _mm256_movemask_pd(_mm256_castsi256_pd(v));
}

DLSIM_AVX2 KeyRange keys_avx2(const double* x, Eigen::Index d, std::uint64_t* keys) {
  // A zero key competes for the smallest non-zero as 2^63 − 1, which no smaller key loses
  // to; with no non-zero key at all (the largest is 0) there is none. Two registers of
  // each, eight keys a step: a compare and a blend per step wait on the previous ones.
  const __m256i magnitude = _mm256_set1_epi64x(0x7fffffffffffffffLL);
  const __m256i zero = _mm256_setzero_si256();
  __m256i largest[2] = {zero, zero}, smallest[2] = {magnitude, magnitude};
  const auto step = [&](Eigen::Index at, int r) DLSIM_AVX2 {
    const __m256i key =
        _mm256_and_si256(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(x + at)), magnitude);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + at), key);
    largest[r] = _mm256_blendv_epi8(largest[r], key, _mm256_cmpgt_epi64(key, largest[r]));
    const __m256i candidate =
        _mm256_or_si256(key, _mm256_and_si256(_mm256_cmpeq_epi64(key, zero), magnitude));
    smallest[r] =
        _mm256_blendv_epi8(smallest[r], candidate, _mm256_cmpgt_epi64(smallest[r], candidate));
  };
  Eigen::Index i = 0;
  for (; i + 8 <= d; i += 8) {
    step(i, 0);
    step(i + 4, 1);
  }
  if (i + 4 <= d) {
    step(i, 0);
    i += 4;
  }
  alignas(32) std::uint64_t high[8], low[8];
  for (int r = 0; r < 2; ++r) {
    _mm256_store_si256(reinterpret_cast<__m256i*>(high + 4 * r), largest[r]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(low + 4 * r), smallest[r]);
  }
  KeyRange r{*std::max_element(high, high + 8), *std::min_element(low, low + 8)};
  if (r.largest == 0) r.smallest_nonzero = ~std::uint64_t(0);
  const KeyRange tail = keys_portable(x + i, d - i, keys + i);
  return {std::max(r.largest, tail.largest), std::min(r.smallest_nonzero, tail.smallest_nonzero)};
}

template <Keep kind>
DLSIM_AVX2 std::size_t keep_avx2(std::uint64_t* keys, Eigen::Index d, std::uint64_t v) {
  const __m256i wanted = _mm256_set1_epi64x(std::int64_t(v));
  std::size_t n = 0;
  Eigen::Index j = 0;
  for (; j + 4 <= d; j += 4) {  // writes at n <= j: the four read are in a register
    const __m256i key = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + j));
    const int kept =
        kind == Keep::bin
            ? lane_mask(_mm256_cmpeq_epi64(_mm256_srli_epi64(key, kSmallShift), wanted))
            : lane_mask(_mm256_cmpgt_epi64(wanted, key)) ^ 0xf;  // key >= v
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(keys + n), pack(key, kept));
    n += std::size_t(std::popcount(unsigned(kept)));
  }
  return keep_portable<kind>(keys, d, v, j, n);
}

DLSIM_AVX2 KthKey rank_avx2(const std::uint64_t* keys, std::size_t n, std::int64_t r) {
  const __m256i lane = _mm256_setr_epi64x(0, 1, 2, 3);
  for (std::size_t i = 0; i < n; ++i) {
    const __m256i key = _mm256_set1_epi64x(std::int64_t(keys[i]));
    std::int64_t greater = 0, equal = 0;
    for (std::size_t j = 0; j < n; j += 4) {
      // Lanes past n are read (the scratch has room for d + 8 keys) and not counted.
      const int lanes =
          lane_mask(_mm256_cmpgt_epi64(_mm256_set1_epi64x(std::int64_t(n - j)), lane));
      const __m256i other = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(keys + j));
      greater += std::popcount(unsigned(lane_mask(_mm256_cmpgt_epi64(other, key)) & lanes));
      equal += std::popcount(unsigned(lane_mask(_mm256_cmpeq_epi64(other, key)) & lanes));
    }
    if (greater < r && r <= greater + equal) return {keys[i], greater, equal};
  }
  throw std::logic_error("top-k: no key of the requested rank");
}

#else
KeyRange keys_avx512(const double* x, Eigen::Index d, std::uint64_t* keys) {
  return keys_portable(x, d, keys);
}
template <Keep kind>
std::size_t keep_avx512(std::uint64_t* keys, Eigen::Index d, std::uint64_t v) {
  return keep_portable<kind>(keys, d, v);
}
KthKey rank_avx512(const std::uint64_t* keys, std::size_t n, std::int64_t r) {
  return rank_portable(keys, n, r);
}
KeyRange keys_avx2(const double* x, Eigen::Index d, std::uint64_t* keys) {
  return keys_portable(x, d, keys);
}
template <Keep kind>
std::size_t keep_avx2(std::uint64_t* keys, Eigen::Index d, std::uint64_t v) {
  return keep_portable<kind>(keys, d, v);
}
KthKey rank_avx2(const std::uint64_t* keys, std::size_t n, std::int64_t r) {
  return rank_portable(keys, n, r);
}
#endif

// Each step on the widest of its versions `set` allows.
KeyRange keys_of(InstructionSet set, const double* x, Eigen::Index d, std::uint64_t* keys) {
  switch (set) {
    case InstructionSet::avx512:
      return keys_avx512(x, d, keys);
    case InstructionSet::avx2:
      return keys_avx2(x, d, keys);
    default:
      return keys_portable(x, d, keys);
  }
}
template <Keep kind>
std::size_t keep(InstructionSet set, std::uint64_t* keys, Eigen::Index d, std::uint64_t v) {
  switch (set) {
    case InstructionSet::avx512:
      return keep_avx512<kind>(keys, d, v);
    case InstructionSet::avx2:
      return keep_avx2<kind>(keys, d, v);
    default:
      return keep_portable<kind>(keys, d, v);
  }
}
KthKey rank(InstructionSet set, const std::uint64_t* keys, std::size_t n, std::int64_t r) {
  switch (set) {
    case InstructionSet::avx512:
      return rank_avx512(keys, n, r);
    case InstructionSet::avx2:
      return rank_avx2(keys, n, r);
    default:
      return rank_portable(keys, n, r);
  }
}

// Zeroes the bins count_bins() touched: [bin of the smallest non-zero key, top bin] and
// the zeros' bin, or each key's own bin when that range is wider than there are keys.
void clear_bins(const std::uint64_t* keys, Eigen::Index d, Window window, KeyRange range,
                std::uint32_t* h) {
  if (range.smallest_nonzero <= range.largest) {
    const std::size_t first = window.bin(range.smallest_nonzero), last = window.bin(range.largest);
    if (last - first >= std::size_t(d)) {
      for (Eigen::Index j = 0; j < d; ++j)
        h[std::size_t(j % kWays) * kWindow + window.bin(keys[j])] = 0;
      return;
    }
    for (int w = 0; w < kWays; ++w)
      std::fill(h + std::size_t(w) * kWindow + first, h + std::size_t(w) * kWindow + last + 1, 0u);
  }
  for (int w = 0; w < kWays; ++w) h[std::size_t(w) * kWindow + window.bin(0)] = 0;
}

}  // namespace

namespace top_k_detail {

KthKey kth_largest_key_small(const double* x, Eigen::Index d, std::int64_t k,
                             std::vector<std::uint64_t>& scratch,
                             std::vector<std::uint32_t>& histogram, InstructionSet set) {
  scratch.resize(std::size_t(d) + 8);
  std::uint64_t* keys = scratch.data();
  if (histogram.size() != kWays * kWindow) histogram.assign(kWays * kWindow, 0);  // else all zero
  std::uint32_t* h = histogram.data();
  KeyRange range = keys_of(set, x, d, keys);
  const Window window = window_below(range.largest);
  // Step 1½: when at least k keys are >= half the largest (one exponent step below it;
  // in case (f) 96 % of messages, with 203 such keys of 785 on average), the k-th largest
  // and every key it is compared with are among them: only those are kept and counted.
  // Otherwise the keys are computed again and all are counted. Not tried when k > d/8:
  // fewer keys than that are usually so large (13 % of a Gaussian's), and the pass and the
  // second computation of the keys would be wasted.
  constexpr std::uint64_t kExponentStep = std::uint64_t(1) << 52;
  Eigen::Index counted = d;  // keys[0, counted) take part from here on
  if (range.largest >= kExponentStep && 8 * k <= d) {
    const std::uint64_t half = range.largest - kExponentStep;
    const std::size_t n = keep<Keep::at_least>(set, keys, d, half);
    if (std::int64_t(n) >= k) {
      counted = Eigen::Index(n);
      range.smallest_nonzero = half;  // a lower bound of the counted keys
    } else {
      range = keys_of(set, x, d, keys);
    }
  }
  count_bins(keys, counted, window, h);
  const auto count = [&](std::size_t b) {
    std::int64_t c = 0;
    for (int w = 0; w < kWays; ++w) c += h[std::size_t(w) * kWindow + b];
    return c;
  };
  std::int64_t above = 0;  // keys known to be larger than the ones being resolved
  std::size_t bin = window.bin(range.largest);
  while (above + count(bin) < k) above += count(bin--);
  clear_bins(keys, counted, window, range, h);

  std::size_t n;
  int low;  // bits below `low` are not resolved yet
  if (bin > 0) {
    const std::uint64_t v = window.low + bin - 1;
    n = keep<Keep::bin>(set, keys, counted, v);
    low = kSmallShift;
  } else {
    n = keep_below(keys, counted, window);
    low = 64;
  }
  std::uint32_t counts[256];
  while (n > kRanked && low > 0) {
    const int next_low = std::max(0, low - 8);
    const std::uint64_t mask = (std::uint64_t(1) << (low - next_low)) - 1;
    std::fill(std::begin(counts), std::end(counts), 0u);
    std::uint64_t top = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t digit = (keys[j] >> next_low) & mask;
      ++counts[digit];
      top = std::max(top, digit);
    }
    std::uint64_t b = top;
    while (above + std::int64_t(counts[b]) < k) above += counts[b--];
    std::size_t kept = 0;
    for (std::size_t j = 0; j < n; ++j) {
      const std::uint64_t key = keys[j];
      keys[kept] = key;
      kept += ((key >> next_low) & mask) == b ? 1 : 0;
    }
    n = kept;
    low = next_low;
  }
  if (n > kRanked) return {keys[0], above, std::int64_t(n)};  // every bit resolved: n equal keys
  const KthKey in_bin = rank(set, keys, n, k - above);
  return {in_bin.key, above + in_bin.greater, in_bin.equal};
}

}  // namespace top_k_detail

namespace {

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
// indices_at_least with AVX-512F: eight magnitudes compared at once, the kept positions
// compressed to the front of a register of indices and stored whole (room for d + 8).
__attribute__((target("avx512f"))) std::size_t indices_at_least_avx512(const double* x,
                                                                       Eigen::Index d, double t,
                                                                       std::uint64_t* at) {
  const __m512i magnitude = _mm512_set1_epi64(0x7fffffffffffffffLL);
  const __m512d threshold = _mm512_set1_pd(t);
  __m512i index = _mm512_setr_epi64(0, 1, 2, 3, 4, 5, 6, 7);
  std::size_t n = 0;
  Eigen::Index i = 0;
  for (; i + 8 <= d; i += 8) {
    const __m512d m = _mm512_castsi512_pd(_mm512_and_si512(_mm512_loadu_si512(x + i), magnitude));
    const __mmask8 kept = _mm512_cmp_pd_mask(m, threshold, _CMP_NLT_UQ);  // NaN: kept
    _mm512_storeu_si512(at + n, _mm512_maskz_compress_epi64(kept, index));
    n += std::size_t(std::popcount(unsigned(kept)));
    index = _mm512_add_epi64(index, _mm512_set1_epi64(8));
  }
  for (; i < d; ++i) {
    at[n] = std::uint64_t(i);
    n += std::size_t(!(std::fabs(x[i]) < t));
  }
  return n;
}

// indices_at_least with AVX2: four magnitudes compared at once, the kept positions packed
// to the front of a register of indices (PackTable) and stored whole (room for d + 8).
DLSIM_AVX2 std::size_t indices_at_least_avx2(const double* x, Eigen::Index d, double t,
                                             std::uint64_t* at) {
  const __m256d magnitude = _mm256_castsi256_pd(_mm256_set1_epi64x(0x7fffffffffffffffLL));
  const __m256d threshold = _mm256_set1_pd(t);
  __m256i index = _mm256_setr_epi64x(0, 1, 2, 3);
  std::size_t n = 0;
  Eigen::Index i = 0;
  for (; i + 4 <= d; i += 4) {
    const __m256d m = _mm256_and_pd(_mm256_loadu_pd(x + i), magnitude);
    const int kept = _mm256_movemask_pd(_mm256_cmp_pd(m, threshold, _CMP_NLT_UQ));  // NaN: kept
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + n), pack(index, kept));
    n += std::size_t(std::popcount(unsigned(kept)));
    index = _mm256_add_epi64(index, _mm256_set1_epi64x(4));
  }
  for (; i < d; ++i) {
    at[n] = std::uint64_t(i);
    n += std::size_t(!(std::fabs(x[i]) < t));
  }
  return n;
}
#endif

}  // namespace

// The positions i with |x_i| >= t (and NaN ones: their keys are the largest), ascending,
// written to `at` (room for d + 8); returns their count. No branch per value: SSE2
// compares four magnitudes, and their 4-bit mask picks the offsets to write from a table
// (every slot is written, the count moves past the kept ones).
std::size_t top_k_detail::indices_at_least(const double* x, Eigen::Index d, double t,
                                           std::uint64_t* at, InstructionSet set) {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (set == InstructionSet::avx512) return indices_at_least_avx512(x, d, t, at);
  if (set == InstructionSet::avx2) return indices_at_least_avx2(x, d, t, at);
#endif
  std::size_t n = 0;
  Eigen::Index i = 0;
#if defined(__SSE2__)
  struct Pick {
    std::uint8_t offset[4];
    std::uint8_t count;
  };
  static constexpr auto picks = [] {
    std::array<Pick, 16> p{};
    for (int m = 0; m < 16; ++m) {
      std::uint8_t c = 0;
      for (std::uint8_t b = 0; b < 4; ++b)
        if (m >> b & 1) p[std::size_t(m)].offset[c++] = b;
      p[std::size_t(m)].count = c;
    }
    return p;
  }();
  const __m128d magnitude = _mm_castsi128_pd(_mm_set1_epi64x(0x7fffffffffffffffLL));
  const __m128d threshold = _mm_set1_pd(t);
  for (; i + 4 <= d; i += 4) {
    const __m128d low = _mm_and_pd(_mm_loadu_pd(x + i), magnitude);
    const __m128d high = _mm_and_pd(_mm_loadu_pd(x + i + 2), magnitude);
    const int mask = _mm_movemask_pd(_mm_cmpnlt_pd(low, threshold)) |
                     _mm_movemask_pd(_mm_cmpnlt_pd(high, threshold)) << 2;
    const Pick& p = picks[std::size_t(mask)];
    for (int b = 0; b < 4; ++b) at[n + std::size_t(b)] = std::uint64_t(i + p.offset[b]);
    n += p.count;
  }
#endif
  for (; i < d; ++i) {
    at[n] = std::uint64_t(i);
    n += std::size_t(!(std::fabs(x[i]) < t));
  }
  return n;
}

KthKey kth_largest_key(const Eigen::VectorXd& v, std::int64_t k,
                       std::vector<std::uint64_t>& scratch, std::vector<std::uint32_t>& histogram) {
  const Eigen::Index d = v.size();
  const double* x = v.data();
  auto count_greater = [&](std::uint64_t t) {
    std::int64_t greater = 0;
    for (const std::uint64_t key : scratch) greater += key > t ? 1 : 0;
    return greater;
  };
  constexpr Eigen::Index kSmall = 1 << 16;
  if (d <= kSmall)
    return top_k_detail::kth_largest_key_small(x, d, k, scratch, histogram, best_instruction_set());
  // Two interleaved histograms of the top 16 key bits (keys < 2^63: 65536 bins), so that
  // runs of equal bins do not serialize on one counter.
  constexpr int kShift = 47;
  constexpr std::size_t kBins = std::size_t(1) << 16;
  histogram.assign(2 * kBins, 0);
  std::uint32_t* even = histogram.data();
  std::uint32_t* odd = histogram.data() + kBins;
  Eigen::Index i = 0;
  for (; i + 1 < d; i += 2) {
    ++even[magnitude_key(x[i]) >> kShift];
    ++odd[magnitude_key(x[i + 1]) >> kShift];
  }
  if (i < d) ++even[magnitude_key(x[i]) >> kShift];
  std::int64_t above = 0;
  std::size_t bin = kBins - 1;
  while (above + std::int64_t(even[bin] + odd[bin]) < k) {
    above += std::int64_t(even[bin] + odd[bin]);
    --bin;
  }
  scratch.clear();
  scratch.reserve(even[bin] + odd[bin]);
  for (Eigen::Index j = 0; j < d; ++j) {
    const std::uint64_t key = magnitude_key(x[j]);
    if ((key >> kShift) == bin) scratch.push_back(key);
  }
  const auto rank = std::size_t(k - above - 1);  // 0-based rank inside the bin
  std::nth_element(scratch.begin(), scratch.begin() + std::ptrdiff_t(rank), scratch.end(),
                   std::greater<>());
  const std::uint64_t t = scratch[rank];
  return {t, above + count_greater(t), 0};
}

}  // namespace dlsim::models
