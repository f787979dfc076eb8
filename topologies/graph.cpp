#include "topologies/graph.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace dlsim::topo {

namespace {
void add_edge(Graph& g, int a, int b) {
  if (a == b) return;
  g.neighbors[a].push_back(b);
  g.neighbors[b].push_back(a);
}
void normalize(Graph& g) {
  for (auto& adj : g.neighbors) {
    std::sort(adj.begin(), adj.end());
    adj.erase(std::unique(adj.begin(), adj.end()), adj.end());
  }
}
}  // namespace

std::int64_t Graph::edges() const {
  std::int64_t twice = 0;
  for (const auto& adj : neighbors) twice += std::int64_t(adj.size());
  return twice / 2;
}

Graph ring(int n) {
  if (n < 1) throw std::invalid_argument("ring needs at least one node");
  Graph g{std::vector<std::vector<int>>(n)};
  for (int i = 0; i < n; ++i) add_edge(g, i, (i + 1) % n);
  normalize(g);
  return g;
}

Graph torus(const std::vector<std::int64_t>& dims) {
  if (dims.empty()) throw std::invalid_argument("torus needs at least one dimension");
  const std::int64_t n =
      std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
  Graph g{std::vector<std::vector<int>>(n)};
  // Row-major strides: the last dimension varies fastest.
  std::vector<std::int64_t> stride(dims.size(), 1);
  for (int k = int(dims.size()) - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const std::int64_t coord = (i / stride[k]) % dims[k];
      const std::int64_t next = (coord + 1) % dims[k];
      add_edge(g, int(i), int(i + (next - coord) * stride[k]));
    }
  }
  normalize(g);
  return g;
}

}  // namespace dlsim::topo
