// A communication graph in compressed sparse row (CSR) form: the out-neighbours of
// node i are targets[offsets[i] .. offsets[i+1]), sorted, without self loops or
// duplicates. An undirected graph stores both directions of every edge, so
// out(i) is simply N(i). Generators build graphs through `from_arcs`; Boost.Graph
// is used for generation and analysis (generators.cpp, analysis.cpp), this flat
// form is what the simulator reads every round.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

namespace dlsim::topo {

struct Graph {
  int n = 0;
  bool directed = false;
  std::vector<std::int64_t> offsets{0};  // n + 1 entries
  std::vector<int> targets;

  int nodes() const { return n; }
  std::span<const int> out(int i) const {
    return {targets.data() + offsets[i], std::size_t(offsets[i + 1] - offsets[i])};
  }
  int out_degree(int i) const { return int(offsets[i + 1] - offsets[i]); }
  /// Undirected: the number of edges; directed: the number of arcs.
  std::int64_t edges() const {
    return directed ? std::int64_t(targets.size()) : std::int64_t(targets.size()) / 2;
  }
  bool has_arc(int from, int to) const;

  /// Builds a graph from (from, to) pairs: self loops are dropped and duplicates
  /// merged; for an undirected graph each edge may be given in either or both
  /// directions.
  static Graph from_arcs(int n, std::vector<std::pair<int, int>> arcs, bool directed);
};

/// The graph with every arc reversed (in-neighbours become out-neighbours).
Graph transpose(const Graph& g);

}  // namespace dlsim::topo
