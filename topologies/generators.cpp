#include "topologies/generators.hpp"

#include <numeric>
#include <string>

#include "topologies/topology_error.hpp"

namespace dlsim::topo {

namespace {

void require_nodes(int n, int at_least, const char* kind) {
  if (n < at_least) {
    throw TopologyError("workers", std::string(kind) + " needs at least " +
                                       std::to_string(at_least) + " nodes, got " +
                                       std::to_string(n));
  }
}

// ±1 along each dimension of a row-major lattice, with or without wrap-around.
Graph lattice(const std::vector<std::int64_t>& dims, bool wrap) {
  if (dims.empty()) throw TopologyError("dims", "needs at least one dimension");
  const std::int64_t n =
      std::accumulate(dims.begin(), dims.end(), std::int64_t{1}, std::multiplies<>());
  std::vector<std::int64_t> stride(dims.size(), 1);
  for (int k = int(dims.size()) - 2; k >= 0; --k) stride[k] = stride[k + 1] * dims[k + 1];
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(std::size_t(n) * dims.size());
  for (std::int64_t i = 0; i < n; ++i) {
    for (std::size_t k = 0; k < dims.size(); ++k) {
      const std::int64_t coord = (i / stride[k]) % dims[k];
      if (!wrap && coord + 1 == dims[k]) continue;
      const std::int64_t next = (coord + 1) % dims[k];
      arcs.emplace_back(int(i), int(i + (next - coord) * stride[k]));
    }
  }
  return Graph::from_arcs(int(n), std::move(arcs), false);
}

}  // namespace

std::vector<int> powers_of_two_below(int n) {
  std::vector<int> shifts;
  for (std::int64_t s = 1; s < n; s *= 2) shifts.push_back(int(s));
  return shifts;
}

Graph circulant_graph(int n, const std::vector<int>& shifts, bool directed) {
  std::vector<std::pair<int, int>> arcs;
  arcs.reserve(std::size_t(n) * shifts.size());
  for (int i = 0; i < n; ++i) {
    for (int s : shifts) arcs.emplace_back(i, int((std::int64_t(i) + s) % n));
  }
  return Graph::from_arcs(n, std::move(arcs), directed);
}

Graph complete_graph(int n) {
  require_nodes(n, 2, "complete");
  if (std::int64_t(n) * (n - 1) > kMaxArcs) {
    throw TopologyError("workers", "complete graph on " + std::to_string(n) +
                                       " nodes has too many edges (at most " +
                                       std::to_string(kMaxArcs / 2) + ")");
  }
  Graph g;
  g.n = n;
  g.offsets.resize(std::size_t(n) + 1);
  g.targets.reserve(std::size_t(n) * (n - 1));
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (j != i) g.targets.push_back(j);
    }
    g.offsets[i + 1] = std::int64_t(g.targets.size());
  }
  return g;
}

Graph star_graph(int n) {
  require_nodes(n, 2, "star");
  std::vector<std::pair<int, int>> arcs;
  for (int i = 1; i < n; ++i) arcs.emplace_back(0, i);
  return Graph::from_arcs(n, std::move(arcs), false);
}

Graph ring_graph(int n) {
  require_nodes(n, 2, "ring");
  return circulant_graph(n, {1}, false);
}

Graph torus_graph(const std::vector<std::int64_t>& dims) {
  return lattice(dims, true);
}

Graph grid_graph(const std::vector<std::int64_t>& dims) {
  return lattice(dims, false);
}

Graph hypercube_graph(int n) {
  require_nodes(n, 2, "hypercube");
  if ((n & (n - 1)) != 0) {
    throw TopologyError("kind",
                        "hypercube needs workers to be a power of 2, got " + std::to_string(n));
  }
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n; ++i) {
    for (int bit = 1; bit < n; bit *= 2) arcs.emplace_back(i, i ^ bit);
  }
  return Graph::from_arcs(n, std::move(arcs), false);
}

Graph dyck_graph(int n) {
  if (n != 32) {
    throw TopologyError(
        "kind", "dyck is the 32-node Dyck graph: workers must be 32, got " + std::to_string(n));
  }
  // LCF notation [5, -5, 13, -13]^8: the Hamiltonian cycle i ~ i + 1 plus, at node i, the
  // chord to i + lcf[i mod 4] (mod 32). Each chord is listed from both ends.
  constexpr int lcf[4] = {5, -5, 13, -13};
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n; ++i) {
    arcs.emplace_back(i, (i + 1) % n);
    arcs.emplace_back(i, (i + lcf[i % 4] + n) % n);
  }
  return Graph::from_arcs(n, std::move(arcs), false);
}

Graph exponential_graph(int n) {
  require_nodes(n, 2, "exponential");
  return circulant_graph(n, powers_of_two_below(n), false);
}

Graph directed_ring_graph(int n) {
  require_nodes(n, 2, "directed-ring");
  return circulant_graph(n, {1}, true);
}

Graph directed_exponential_graph(int n) {
  require_nodes(n, 2, "directed-exponential");
  return circulant_graph(n, powers_of_two_below(n), true);
}

}  // namespace dlsim::topo
