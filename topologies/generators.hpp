// Deterministic graph generators (docs/design.md §9), n = number of nodes:
//   complete     all pairs                          star   0 ~ every other node
//   ring         i ~ i±1 (mod n)                    torus  ±1 along each dim, wrap-around
//   grid         ±1 along each dim, no wrap         hypercube  n = 2^k, i ~ i xor 2^j
//   exponential  i ~ i ± 2^k (mod n), 2^k < n
//   directed-ring i → i+1;  directed-exponential i → i + 2^k (mod n), 2^k < n
// Node ids of torus and grid are row-major (the last dimension varies fastest);
// duplicate neighbours are merged (a torus dimension of size 2 gives one neighbour).
// Impossible sizes throw TopologyError.
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim::topo {

/// Largest number of arcs (directed adjacencies) a generated graph may hold.
inline constexpr std::int64_t kMaxArcs = 200'000'000;

Graph complete_graph(int n);
Graph star_graph(int n);
Graph ring_graph(int n);
Graph torus_graph(const std::vector<std::int64_t>& dims);
Graph grid_graph(const std::vector<std::int64_t>& dims);
Graph hypercube_graph(int n);
/// The Dyck graph (32 nodes, cubic, 48 edges, girth 6, bipartite, arc-transitive), from its
/// LCF notation [5, -5, 13, -13]^8; n must be 32.
Graph dyck_graph(int n);
Graph exponential_graph(int n);
Graph directed_ring_graph(int n);
Graph directed_exponential_graph(int n);

/// 1, 2, 4, ... below n: the offsets of the exponential graphs.
std::vector<int> powers_of_two_below(int n);
/// The circulant graph i → i + s (mod n) for every s in `shifts` (and i → i − s too
/// when undirected).
Graph circulant_graph(int n, const std::vector<int>& shifts, bool directed);

}  // namespace dlsim::topo
