// Deterministic random streams derived from (seed, purpose, node) (docs/design.md §11).
// Every consumer of randomness asks for its own stream, so adding a draw in one
// place never shifts the numbers another place sees, and thread scheduling cannot
// change results.
#pragma once

#include <cstdint>
#include <random>
#include <string_view>

#include "rng/splitmix64.hpp"

namespace dlsim::sim {

/// FNV-1a hash of a purpose label, so streams can be named ("batches", "init").
constexpr std::uint64_t hash_label(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : s) h = (h ^ std::uint8_t(c)) * 0x100000001b3ULL;
  return h;
}

/// Seed of the stream for (seed, purpose, node).
constexpr std::uint64_t stream_seed(std::uint64_t seed, std::string_view purpose,
                                    std::uint64_t node = 0) {
  using rng::splitmix64;
  return splitmix64(splitmix64(splitmix64(seed) ^ hash_label(purpose)) ^ node);
}

/// The generator every stream uses; its raw output is fixed by the C++ standard. Every
/// draw from it goes through rng/distributions.hpp (Boost.Random's normal, gamma and
/// uniform integers, whose algorithms are Boost's code) or rng/shuffle.hpp (a specified
/// Fisher–Yates), never through the std distributions or std::shuffle, whose algorithms
/// each standard library chooses: a run gives the same numbers with any of them
/// (docs/design.md §11 rule 6).
using Rng = std::mt19937_64;

inline Rng make_rng(std::uint64_t seed, std::string_view purpose, std::uint64_t node = 0) {
  return Rng(stream_seed(seed, purpose, node));
}

}  // namespace dlsim::sim
