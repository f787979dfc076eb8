// Seeded random graphs. Every graph is a function of (seed, ...) only: attempt a
// (for the kinds resampled until connected) and round t (random matchings) each get
// their own generator, boost::random::mt19937_64 seeded with
//   derive_seed(seed, purpose, index) = splitmix64(splitmix64(seed ^ purpose) ^ index),
// and Boost.Random distributions, whose output is fixed by Boost's own code, so
// graphs do not change with the C++ standard library.
//   random-regular: Steger–Wormald pairing (random stubs, rejecting self loops and
//                   repeated edges; restart when stuck), resampled until connected.
//   erdos-renyi:    G(n, p) via Boost's sorted_erdos_renyi_iterator, resampled
//                   until connected.
//   small-world:    Watts–Strogatz via Boost's small_world_iterator: ring lattice
//                   with k/2 neighbours on each side, each edge rewired with
//                   probability p; resampled until connected.
//   random-matching: a uniformly random perfect matching of round t (n even):
//                   a Fisher–Yates shuffle, then pairs (π0, π1), (π2, π3), ...
#pragma once

#include <cstdint>

#include "topologies/graph.hpp"

namespace dlsim::topo {

/// Attempts before a kind that is resampled until connected gives up.
inline constexpr int kMaxConnectAttempts = 200;

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index);

Graph random_regular_graph(int n, int degree, std::uint64_t seed);
Graph erdos_renyi_graph(int n, double p, std::uint64_t seed);
Graph small_world_graph(int n, int k, double p, std::uint64_t seed);
Graph random_matching_graph(int n, std::uint64_t seed, std::int64_t round);

}  // namespace dlsim::topo
