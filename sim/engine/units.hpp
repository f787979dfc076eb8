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
  /// Rounds to the nearest picosecond.
  static SimTime from_seconds(double s) { return SimTime{std::llround(s * double(kPerSecond))}; }
  static constexpr SimTime max() { return SimTime{INT64_MAX}; }

  constexpr double seconds() const { return double(ps) / double(kPerSecond); }
  constexpr auto operator<=>(const SimTime&) const = default;
  constexpr SimTime operator+(SimTime o) const { return SimTime{ps + o.ps}; }
  constexpr SimTime operator-(SimTime o) const { return SimTime{ps - o.ps}; }
  constexpr SimTime& operator+=(SimTime o) {
    ps += o.ps;
    return *this;
  }
};

/// A data size in bits (message payloads, headers, counters).
using Bits = std::uint64_t;
/// A transfer rate in bits per second.
using BitsPerSecond = double;
/// Floating-point operations (compute cost) and FLOP per second.
using Flops = double;

}  // namespace dlsim::sim
