// Parameter counts from scenario values that may be absurd (a libsvm feature index of
// 2^31, a hidden layer of 4e9 units): int64 arithmetic that saturates at INT64_MAX
// instead of wrapping around, so an impossible model stays impossibly large and the
// memory guard refuses it (sim/run/memory_guard.hpp).
#pragma once

#include <cstdint>
#include <limits>

namespace dlsim::models {

constexpr std::int64_t kSaturatedCount = std::numeric_limits<std::int64_t>::max();

/// a + b for a, b >= 0, INT64_MAX when it overflows.
constexpr std::int64_t saturating_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  return __builtin_add_overflow(a, b, &sum) ? kSaturatedCount : sum;
}

/// a · b for a, b >= 0, INT64_MAX when it overflows.
constexpr std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? kSaturatedCount : product;
}

}  // namespace dlsim::models
