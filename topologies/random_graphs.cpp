#include "topologies/random_graphs.hpp"

#include <algorithm>
#include <sstream>
#include <string>
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

// One Steger–Wormald pairing; empty optional-like result (n = 0) when stuck.
Graph pair_stubs(int n, int degree, Engine& rng) {
  std::vector<int> stubs;
  stubs.reserve(std::size_t(n) * degree);
  for (int i = 0; i < n; ++i) stubs.insert(stubs.end(), std::size_t(degree), i);
  std::vector<std::vector<int>> adj(n);
  const auto adjacent = [&](int a, int b) {
    return std::find(adj[a].begin(), adj[a].end(), b) != adj[a].end();
  };
  std::vector<std::pair<int, int>> arcs;
  int failures = 0;
  while (!stubs.empty()) {
    const int s = int(stubs.size());
    const int a = uniform_below(rng, s), b = uniform_below(rng, s);
    const int u = stubs[a], v = stubs[b];
    if (a == b || u == v || adjacent(u, v)) {
      if (++failures < 50 * degree + 100) continue;
      // Stuck? Look for any suitable pair among the few stubs left.
      bool any = false;
      for (int x = 0; x < s && !any; ++x) {
        for (int y = x + 1; y < s && !any; ++y) {
          any = stubs[x] != stubs[y] && !adjacent(stubs[x], stubs[y]);
        }
      }
      if (!any) return Graph{};
      failures = 0;
      continue;
    }
    failures = 0;
    adj[u].push_back(v);
    adj[v].push_back(u);
    arcs.emplace_back(u, v);
    for (int idx : {std::max(a, b), std::min(a, b)}) {
      stubs[idx] = stubs.back();
      stubs.pop_back();
    }
  }
  return Graph::from_arcs(n, std::move(arcs), false);
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

Graph random_regular_graph(int n, int degree, std::uint64_t seed) {
  if (degree < 1 || degree >= n) {
    throw TopologyError("degree", "must be in [1, workers - 1] = [1, " + std::to_string(n - 1) +
                                      "], got " + std::to_string(degree));
  }
  if ((std::int64_t(n) * degree) % 2 != 0) {
    throw TopologyError("degree", "workers x degree must be even (every edge has two ends), got " +
                                      std::to_string(n) + " x " + std::to_string(degree));
  }
  return until_connected(seed, kRegular, "random-regular", "degree",
                         "degree 1 and 2 give matchings and unions of cycles; use degree >= 3",
                         [&](Engine& rng) {
                           for (int restart = 0; restart < 100; ++restart) {
                             Graph g = pair_stubs(n, degree, rng);
                             if (g.n == n) return g;
                           }
                           return Graph{};
                         });
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
