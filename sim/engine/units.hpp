// Units in types: simulated time is an integer count of picoseconds (docs/design.md §6),
// sizes are bits, rates are bits per second.
#pragma once

#include <cmath>
#include <compare>
#include <cstdint>

namespace dlsim::sim {

/// A point or span of simulated time, in integer picoseconds.
struct SimTime {
  std::int64_t ps = 0;

  static constexpr std::int64_t kPerSecond = 1'000'000'000'000;
  static constexpr SimTime from_ps(std::int64_t p) { return SimTime{p}; }
  /// The end of the clock (2^63 - 1 ps, about 106.75 days). Arithmetic saturates here
  /// instead of wrapping, and an event due at max() is never run: the engine stops at the
  /// clock's end (Engine::reached_clock_end, docs/design.md §6).
  static constexpr SimTime max() { return SimTime{INT64_MAX}; }
  static constexpr SimTime min() { return SimTime{INT64_MIN}; }
  /// Rounds to the nearest picosecond; saturates at ±max() (and NaN gives max()).
  static SimTime from_ps_rounded(double p) {
    if (!(p < 0x1p63)) return max();
    if (p < -0x1p63) return min();
    return SimTime{std::llround(p)};
  }
  static SimTime from_seconds(double s) { return from_ps_rounded(s * double(kPerSecond)); }

  constexpr double seconds() const { return double(ps) / double(kPerSecond); }
  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const {
    std::int64_t sum = 0;
    if (__builtin_add_overflow(ps, o.ps, &sum)) return o.ps > 0 ? max() : min();
    return SimTime{sum};
  }
  constexpr SimTime operator-(SimTime o) const {
    std::int64_t difference = 0;
    if (__builtin_sub_overflow(ps, o.ps, &difference)) return o.ps < 0 ? max() : min();
    return SimTime{difference};
  }
  constexpr SimTime& operator+=(SimTime o) { return *this = *this + o; }
};

/// A data size in bits (message payloads, headers, counters).
using Bits = std::uint64_t;
/// A transfer rate in bits per second.
using BitsPerSecond = double;
/// Floating-point operations (compute cost) and FLOP per second.
using Flops = double;

}  // namespace dlsim::sim
