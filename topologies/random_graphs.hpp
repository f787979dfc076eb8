// Seeded random graphs. Every graph is a function of (seed, ...) only: attempt a
// (for the kinds resampled until connected) and round t (random matchings) each get
// their own generator, boost::random::mt19937_64 seeded with
//   derive_seed(seed, purpose, index) = splitmix64(splitmix64(seed ^ purpose) ^ index)
// (rng/splitmix64.hpp), and draw through rng/distributions.hpp and rng/shuffle.hpp
// (Boost.Random and a specified Fisher–Yates), so graphs do not change with the C++
// standard library.
//   random-regular: n·d even, 1 ≤ d < n (d = 1 only for n = 2).
//                   2d > n − 1: the complement of an (n − 1 − d)-regular graph drawn as
//                   below; every such graph is connected (two non-adjacent nodes have
//                   2d ≥ n − 1 neighbours among the other n − 2, so a common one).
//                   d = 2 otherwise: a uniformly random Hamiltonian cycle (shuffle, then
//                   join consecutive nodes), i.e. a uniform connected 2-regular graph.
//                   d ≥ 3 otherwise: Steger–Wormald pairing (random stubs, rejecting self
//                   loops and repeated edges; when the stubs left cannot be paired, a
//                   random edge is switched to take two of them, which 2d < n guarantees
//                   possible), resampled until connected.
//                   Every result is checked to be d-regular on n nodes (else an internal
//                   error, never a wrong graph).
//   erdos-renyi:    G(n, p) via Boost's sorted_erdos_renyi_iterator, resampled
//                   until connected.
//   small-world:    Watts–Strogatz via Boost's small_world_iterator: ring lattice
//                   with k/2 neighbours on each side, each edge rewired with
//                   probability p; resampled until connected.
//   random-matching: a uniformly random perfect matching of round t (n even):
//                   the shuffle, then pairs (π0, π1), (π2, π3), ...
#pragma once

#include <cstdint>

#include "topologies/graph.hpp"

namespace dlsim::topo {

/// Attempts before a kind that is resampled until connected gives up.
inline constexpr int kMaxConnectAttempts = 200;

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index);

/// Throws TopologyError at "degree" unless a connected degree-regular graph on n nodes
/// exists (1 ≤ degree < n, n·degree even, degree 1 only for n = 2) and fits kMaxArcs.
void check_random_regular(int n, int degree);
Graph random_regular_graph(int n, int degree, std::uint64_t seed);
Graph erdos_renyi_graph(int n, double p, std::uint64_t seed);
Graph small_world_graph(int n, int k, double p, std::uint64_t seed);
Graph random_matching_graph(int n, std::uint64_t seed, std::int64_t round);

}  // namespace dlsim::topo
