// SplitMix64 (Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
// OOPSLA 2014), the one definition every layer uses: the stream seeds of make_rng
// (sim/engine/rng.hpp), the compressors' counter-based uniforms and random-k's index
// stream (models/compress/random_bits.hpp), and the random graphs' seeds
// (topologies/random_graphs.hpp). state_{j+1} = state_j + γ, output_j = mix(state_{j+1}).
#pragma once

#include <cstdint>

namespace dlsim::rng {

__extension__ using Uint128 = unsigned __int128;

/// γ, the state increment (2⁶⁴/φ, odd).
inline constexpr std::uint64_t kGoldenGamma = 0x9e3779b97f4a7c15ULL;

/// The output function: a bijective 64-bit mixer with good avalanche.
constexpr std::uint64_t splitmix64_mix(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

/// The first output of the generator started from state z: mix(z + γ).
constexpr std::uint64_t splitmix64(std::uint64_t z) {
  return splitmix64_mix(z + kGoldenGamma);
}

/// The generator: fully determined by its 64-bit state.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() { return splitmix64_mix(state_ += kGoldenGamma); }
  /// Uniform integer in [0, n), n ≥ 1, without modulo bias (Lemire, ACM TOMACS 29(1), 2019).
  std::uint64_t below(std::uint64_t n) {
    Uint128 m = Uint128(next()) * n;
    auto low = std::uint64_t(m);
    if (low < n) {
      const std::uint64_t threshold = (0 - n) % n;
      while (low < threshold) {
        m = Uint128(next()) * n;
        low = std::uint64_t(m);
      }
    }
    return std::uint64_t(m >> 64);
  }

 private:
  std::uint64_t state_;
};

}  // namespace dlsim::rng
