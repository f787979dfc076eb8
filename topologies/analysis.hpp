// Combinatorial facts of a graph (docs/design.md §9): degree range, connectivity
// (strong connectivity for directed graphs, via Boost's strong_components on the
// CSR form) and the diameter.
//
// Diameter (exact whenever a number is returned):
//   - vertex-transitive graphs (ring, torus, hypercube, exponential, complete and
//     the directed circulants): every node has the same eccentricity, so one BFS;
//   - n <= kAllPairsNodes: BFS from every node, 64 sources at a time (bit-parallel
//     BFS: one machine word per node holds the 64 searches), O(n·m·D/64);
//   - larger undirected graphs: iFUB (Crescenzi, Grossi, Habib, Lanzi, Marino,
//     "On computing the diameter of real-world undirected graphs", TCS 2013): BFS
//     from a central node found by a double sweep, then from the nodes of its
//     farthest levels until the lower bound exceeds 2(level − 1). When iFUB would
//     need more work than the bit-parallel all-pairs BFS (expanders such as
//     random-regular, whose farthest level holds most nodes), the latter runs,
//     if it stays under kMaxBfsWork node and arc visits; iFUB gets the same budget.
//     Beyond it the diameter is reported as unknown (nullopt), never estimated
//     (e.g. random-regular or small-world at n = 100,000).
#pragma once

#include <cstdint>
#include <optional>

#include "topologies/graph.hpp"

namespace dlsim::topo {

inline constexpr int kAllPairsNodes = 2000;
inline constexpr std::int64_t kMaxBfsWork = 300'000'000;  // a few seconds

/// Connected (undirected) or strongly connected (directed); a graph without nodes is not.
bool is_connected(const Graph& g);

struct DegreeRange {
  int min = 0;
  int max = 0;
};
/// Out-degrees (the degree of an undirected graph).
DegreeRange degree_range(const Graph& g);

/// Distances (in hops) from `source` along out-arcs; -1 where unreachable.
std::vector<int> bfs_distances(const Graph& g, int source);

/// The diameter, or nullopt when the graph is not (strongly) connected or the
/// exact computation would be too expensive (see above).
std::optional<int> diameter(const Graph& g, bool vertex_transitive);

}  // namespace dlsim::topo
