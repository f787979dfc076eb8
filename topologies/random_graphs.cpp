#include "topologies/random_graphs.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/erdos_renyi_generator.hpp>
#include <boost/graph/small_world_generator.hpp>
#include <boost/random/mersenne_twister.hpp>

#include "rng/distributions.hpp"
#include "rng/shuffle.hpp"
#include "rng/splitmix64.hpp"
#include "topologies/analysis.hpp"
#include "topologies/generators.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {

namespace {

using Engine = boost::random::mt19937_64;
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;

constexpr std::uint64_t kRegular = 0x7265677531ULL;  // purpose labels
constexpr std::uint64_t kErdos = 0x6572646f73ULL;
constexpr std::uint64_t kSmallWorld = 0x736d616c6cULL;
constexpr std::uint64_t kMatching = 0x6d61746368ULL;

std::string number_text(double x) {
  std::ostringstream out;
  out << x;
  return out.str();
}

int uniform_below(Engine& rng, std::int64_t bound) {
  return int(rng::below(rng, bound));
}

// Draws graphs from `sample(rng)` with fresh generators until one is connected.
template <class Sample>
Graph until_connected(std::uint64_t seed, std::uint64_t purpose, const std::string& kind,
                      const std::string& key, const std::string& hint, Sample sample) {
  for (int attempt = 0; attempt < kMaxConnectAttempts; ++attempt) {
    Engine rng(derive_seed(seed, purpose, std::uint64_t(attempt)));
    Graph g = sample(rng);
    if (is_connected(g)) return g;
  }
  throw TopologyError(key, kind + ": no connected sample in " +
                               std::to_string(kMaxConnectAttempts) + " attempts; " + hint);
}

// A simple graph under construction: its edges in insertion order (the draws index
// them) and a set of their keys for O(1) adjacency tests.
class EdgeSet {
 public:
  explicit EdgeSet(int n) : n_(n) {}
  bool has(int u, int v) const { return keys_.contains(key(u, v)); }
  void add(int u, int v) {
    edges_.emplace_back(u, v);
    keys_.insert(key(u, v));
  }
  void remove(std::size_t e) {
    keys_.erase(key(edges_[e].first, edges_[e].second));
    edges_[e] = edges_.back();
    edges_.pop_back();
  }
  const std::vector<std::pair<int, int>>& edges() const { return edges_; }

 private:
  std::uint64_t key(int u, int v) const {
    return std::uint64_t(std::min(u, v)) * std::uint64_t(n_) + std::uint64_t(std::max(u, v));
  }
  int n_;
  std::vector<std::pair<int, int>> edges_;
  std::unordered_set<std::uint64_t> keys_;
};

// A uniformly random pair of distinct positions in [0, s), s ≥ 2.
std::pair<int, int> two_positions(Engine& rng, int s) {
  const int a = uniform_below(rng, s);
  int b = uniform_below(rng, s - 1);
  if (b >= a) ++b;
  return {a, b};
}

// A stub of u and one of v are left and cannot be paired: u = v or u ~ v. Take a random edge
// {x, y} with x ≁ u, y ≁ v (x ≠ u, y ≠ v) and switch it to {u, x}, {v, y}: u and v gain
// their edge, x and y keep their degrees. One exists when 2·degree < n: every x not in
// N[u] has full degree (the stuck stubs are all in N[u]), so ≥ (n − degree)·degree edge
// ends leave those x, and at most |N[v]|·degree ≤ degree² of them reach N[v].
void switch_in(int u, int v, Engine& rng, EdgeSet& g) {
  const auto& edges = g.edges();
  const auto fits = [&](int x, int y) { return x != u && y != v && !g.has(u, x) && !g.has(v, y); };
  std::int64_t count = 0;
  for (const auto& [x, y] : edges) count += int(fits(x, y)) + int(fits(y, x));
  if (count == 0) throw std::logic_error("random-regular: no edge to switch with");
  std::int64_t pick = rng::below(rng, count);
  for (std::size_t e = 0; e < edges.size(); ++e) {
    for (const auto& [x, y] : {edges[e], std::pair(edges[e].second, edges[e].first)}) {
      if (fits(x, y) && pick-- == 0) {
        g.remove(e);
        g.add(u, x);
        g.add(v, y);
        return;
      }
    }
  }
}

// Steger–Wormald pairing (Combin. Probab. Comput. 8, 1999): pair two random stubs,
// rejecting self loops and repeated edges. After 50·degree + 100 rejections in a row it
// picks uniformly among the allowed pairs left, or, when none is (the stubs left sit on
// pairwise adjacent nodes), switches a random pair of them in (switch_in). Every step
// uses up two stubs, so it always ends, with a simple degree-regular graph; needs
// 2·degree < n.
std::vector<std::pair<int, int>> pair_stubs(int n, int degree, Engine& rng) {
  std::vector<int> stubs;
  stubs.reserve(std::size_t(n) * degree);
  for (int i = 0; i < n; ++i) stubs.insert(stubs.end(), std::size_t(degree), i);
  EdgeSet g(n);
  const auto allowed = [&](int a, int b) {
    return stubs[a] != stubs[b] && !g.has(stubs[a], stubs[b]);
  };
  const auto use = [&](int a, int b) {  // removes the stubs at positions a ≠ b
    for (int idx : {std::max(a, b), std::min(a, b)}) {
      stubs[idx] = stubs.back();
      stubs.pop_back();
    }
  };
  int failures = 0;
  while (!stubs.empty()) {
    const int s = int(stubs.size());
    const auto [a, b] = two_positions(rng, s);
    if (allowed(a, b)) {
      g.add(stubs[a], stubs[b]);
      use(a, b);
      failures = 0;
      continue;
    }
    if (++failures < 50 * degree + 100) continue;
    failures = 0;
    std::int64_t count = 0;
    for (int x = 0; x < s; ++x) {
      for (int y = x + 1; y < s; ++y) count += int(allowed(x, y));
    }
    if (count == 0) {
      switch_in(stubs[a], stubs[b], rng, g);
      use(a, b);
      continue;
    }
    std::int64_t pick = rng::below(rng, count);
    for (int x = 0; x < s && pick >= 0; ++x) {
      for (int y = x + 1; y < s && pick >= 0; ++y) {
        if (allowed(x, y) && pick-- == 0) {
          g.add(stubs[x], stubs[y]);
          use(x, y);
        }
      }
    }
  }
  return g.edges();
}

// A uniformly random Hamiltonian cycle: the connected 2-regular graphs, uniformly.
std::vector<std::pair<int, int>> random_cycle(int n, Engine& rng) {
  std::vector<int> order(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) order[std::size_t(i)] = i;
  rng::shuffle(order.begin(), order.end(), rng);
  std::vector<std::pair<int, int>> arcs;
  for (int i = 0; i < n; ++i)
    arcs.emplace_back(order[std::size_t(i)], order[std::size_t((i + 1) % n)]);
  return arcs;
}

// The complement of the simple graph with edges `arcs` on n nodes.
std::vector<std::pair<int, int>> complement(int n, const std::vector<std::pair<int, int>>& arcs) {
  const Graph g = Graph::from_arcs(n, arcs, false);
  std::vector<std::pair<int, int>> out;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      if (!g.has_arc(i, j)) out.emplace_back(i, j);
    }
  }
  return out;
}

// The generator's promise, checked: n nodes, every degree `degree` (a simple graph:
// from_arcs merges repeated edges and drops loops, which would lower a degree).
Graph checked_regular(int n, int degree, std::vector<std::pair<int, int>> arcs) {
  Graph g = Graph::from_arcs(n, std::move(arcs), false);
  bool regular = g.n == n && g.edges() == std::int64_t(n) * degree / 2;
  for (int i = 0; i < g.n && regular; ++i) regular = g.out_degree(i) == degree;
  if (!regular) {
    throw std::logic_error("random-regular: generated a graph that is not " +
                           std::to_string(degree) + "-regular on " + std::to_string(n) + " nodes");
  }
  return g;
}

Graph connected_by_construction(Graph g) {
  if (!is_connected(g)) throw std::logic_error("random-regular: generated a disconnected graph");
  return g;
}

template <class EdgeIterator>
Graph from_boost_edges(int n, EdgeIterator first, EdgeIterator last) {
  std::vector<std::pair<int, int>> arcs;
  for (; first != last; ++first) arcs.emplace_back(int(first->first), int(first->second));
  return Graph::from_arcs(n, std::move(arcs), false);
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index) {
  return rng::splitmix64(rng::splitmix64(seed ^ purpose) ^ index);
}

void check_random_regular(int n, int degree) {
  if (degree < 1 || degree >= n) {
    throw TopologyError("degree", "must be in [1, workers - 1] = [1, " + std::to_string(n - 1) +
                                      "], got " + std::to_string(degree));
  }
  if ((std::int64_t(n) * degree) % 2 != 0) {
    throw TopologyError("degree", "workers x degree must be even (every edge has two ends), got " +
                                      std::to_string(n) + " x " + std::to_string(degree));
  }
  if (degree == 1 && n > 2) {
    throw TopologyError("degree", "degree 1 on " + std::to_string(n) +
                                      " workers is a perfect matching, never connected; use "
                                      "degree >= 2");
  }
  if (std::int64_t(n) * degree > kMaxArcs) {
    throw TopologyError("degree", "the graph would have too many edges (workers x degree at most " +
                                      std::to_string(kMaxArcs) + ")");
  }
}

Graph random_regular_graph(int n, int degree, std::uint64_t seed) {
  check_random_regular(n, degree);
  // Every degree-regular graph with 2·degree ≥ n − 1 is connected (two non-adjacent
  // nodes have a common neighbour), and is the complement of an (n − 1 − degree)-regular
  // one: draw that sparser graph and complement it, once.
  if (2 * degree > n - 1) {
    const int sparse = n - 1 - degree;
    Engine rng(derive_seed(seed, kRegular, 0));
    std::vector<std::pair<int, int>> arcs;
    if (sparse > 0) arcs = pair_stubs(n, sparse, rng);
    return connected_by_construction(checked_regular(n, degree, complement(n, arcs)));
  }
  if (degree == 2) {
    Engine rng(derive_seed(seed, kRegular, 0));
    return connected_by_construction(checked_regular(n, degree, random_cycle(n, rng)));
  }
  return until_connected(
      seed, kRegular, "random-regular", "degree",
      "a random regular graph of degree >= 3 is connected with high "
      "probability; try another seed",
      [&](Engine& rng) { return checked_regular(n, degree, pair_stubs(n, degree, rng)); });
}

Graph erdos_renyi_graph(int n, double p, std::uint64_t seed) {
  if (n < 2) throw TopologyError("workers", "erdos-renyi needs at least 2 nodes");
  if (!(p > 0.0 && p <= 1.0)) {
    throw TopologyError("p", "must be in (0, 1], got " + number_text(p));
  }
  if (p == 1.0) return complete_graph(n);
  if (double(n) * (n - 1) * p > double(kMaxArcs)) {
    throw TopologyError("p", "the graph would have too many edges");
  }
  return until_connected(seed, kErdos, "erdos-renyi", "p",
                         "p is too small for a connected graph (needs p > ln(n)/n roughly)",
                         [&](Engine& rng) {
                           using It = boost::sorted_erdos_renyi_iterator<Engine, BoostGraph>;
                           return from_boost_edges(n, It(rng, std::size_t(n), p), It());
                         });
}

Graph small_world_graph(int n, int k, double p, std::uint64_t seed) {
  if (k < 2 || k % 2 != 0 || k + 1 >= n) {
    throw TopologyError("k", "must be even, >= 2 and < workers - 1 (" + std::to_string(n - 1) +
                                 "), got " + std::to_string(k));
  }
  if (!(p >= 0.0 && p <= 1.0)) {
    throw TopologyError("p", "must be in [0, 1], got " + number_text(p));
  }
  return until_connected(
      seed, kSmallWorld, "small-world", "p",
      "rewiring disconnected every sample; use a smaller p or a larger k", [&](Engine& rng) {
        using It = boost::small_world_iterator<Engine, BoostGraph>;
        return from_boost_edges(n, It(rng, std::size_t(n), std::size_t(k), p), It());
      });
}

Graph random_matching_graph(int n, std::uint64_t seed, std::int64_t round) {
  if (n < 2 || n % 2 != 0) {
    throw TopologyError(
        "workers", "random-matching needs an even number of workers, got " + std::to_string(n));
  }
  Engine rng(derive_seed(seed, kMatching, std::uint64_t(round)));
  std::vector<int> order(n);
  for (int i = 0; i < n; ++i) order[i] = i;
  rng::shuffle(order.begin(), order.end(), rng);
  Graph g;
  g.n = n;
  g.offsets.resize(std::size_t(n) + 1);
  g.targets.resize(n);
  for (int i = 0; i <= n; ++i) g.offsets[i] = i;
  for (int i = 0; i < n; i += 2) {
    g.targets[order[i]] = order[i + 1];
    g.targets[order[i + 1]] = order[i];
  }
  return g;
}

}  // namespace dlsim::topo
