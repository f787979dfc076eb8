#include "topologies/graph.hpp"

#include <algorithm>

namespace dlsim::topo {

bool Graph::has_arc(int from, int to) const {
  const auto adj = out(from);
  return std::binary_search(adj.begin(), adj.end(), to);
}

Graph Graph::from_arcs(int n, std::vector<std::pair<int, int>> arcs, bool directed) {
  if (!directed) {
    const std::size_t given = arcs.size();
    arcs.reserve(2 * given);
    for (std::size_t e = 0; e < given; ++e) arcs.emplace_back(arcs[e].second, arcs[e].first);
  }
  std::erase_if(arcs, [](const auto& a) { return a.first == a.second; });
  std::sort(arcs.begin(), arcs.end());
  arcs.erase(std::unique(arcs.begin(), arcs.end()), arcs.end());
  Graph g;
  g.n = n;
  g.directed = directed;
  g.offsets.assign(std::size_t(n) + 1, 0);
  g.targets.reserve(arcs.size());
  for (const auto& [from, to] : arcs) {
    ++g.offsets[std::size_t(from) + 1];
    g.targets.push_back(to);
  }
  for (int i = 0; i < n; ++i) g.offsets[i + 1] += g.offsets[i];
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
