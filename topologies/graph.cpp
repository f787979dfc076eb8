#include "topologies/graph.hpp"

#include <algorithm>

namespace dlsim::topo {

bool Graph::has_arc(int from, int to) const {
  const auto adj = out(from);
  return std::binary_search(adj.begin(), adj.end(), to);
}

Graph Graph::from_arcs(int n, std::vector<std::pair<int, int>> arcs, bool directed) {
  // Bucketed by source (a counting sort, linear), then each row sorted and deduplicated:
  // the same graph as sorting all arcs, without an O(m log m) sort of the whole list
  // (the sort was 9 % of `dlsim topology ring --workers 1000000`, and a run builds its
  // graph several times).
  Graph g;
  g.n = n;
  g.directed = directed;
  g.offsets.assign(std::size_t(n) + 1, 0);
  auto count = [&](int from, int to) {
    if (from != to) ++g.offsets[std::size_t(from) + 1];
  };
  for (const auto& [from, to] : arcs) {
    count(from, to);
    if (!directed) count(to, from);
  }
  for (int i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
  std::vector<int> targets(std::size_t(g.offsets[n]));
  std::vector<std::int64_t> next(g.offsets.begin(), g.offsets.end() - 1);
  auto place = [&](int from, int to) {
    if (from != to) targets[std::size_t(next[from]++)] = to;
  };
  for (const auto& [from, to] : arcs) {
    place(from, to);
    if (!directed) place(to, from);
  }
  arcs = {};  // free before the graph's own storage grows
  g.targets.reserve(targets.size());
  std::vector<std::int64_t> kept(std::size_t(n) + 1, 0);
  for (int i = 0; i < n; ++i) {
    const auto row_begin = targets.begin() + g.offsets[i],
               row_end = targets.begin() + g.offsets[i + 1];
    std::sort(row_begin, row_end);
    g.targets.insert(g.targets.end(), row_begin, std::unique(row_begin, row_end));
    kept[i + 1] = std::int64_t(g.targets.size());
  }
  g.offsets = std::move(kept);
  return g;
}

Graph transpose(const Graph& g) {
  if (!g.directed) return g;
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(g.targets.size());
  for (int i = 0; i < g.n; ++i) {
    for (int j : g.out(i)) arcs.emplace_back(j, i);
  }
  return Graph::from_arcs(g.n, std::move(arcs), true);
}

}  // namespace dlsim::topo
