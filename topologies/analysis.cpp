#include "topologies/analysis.hpp"

#include <algorithm>
#include <vector>

namespace dlsim::topo {

namespace {

int eccentricity(const std::vector<int>& dist) {
  return *std::max_element(dist.begin(), dist.end());
}

// Largest eccentricity over all sources, 64 BFSs at a time: bit b of word v says
// "search b has reached v".
int bit_parallel_diameter(const Graph& g) {
  const std::size_t n = std::size_t(g.n);
  std::vector<std::uint64_t> seen(n), frontier(n), next(n);
  int best = 0;
  for (std::size_t base = 0; base < n; base += 64) {
    std::fill(seen.begin(), seen.end(), 0);
    std::fill(frontier.begin(), frontier.end(), 0);
    for (std::size_t b = 0; b < 64 && base + b < n; ++b) {
      seen[base + b] = frontier[base + b] = std::uint64_t(1) << b;
    }
    for (int level = 0;; ++level) {
      std::fill(next.begin(), next.end(), 0);
      for (int v = 0; v < g.n; ++v) {
        if (const std::uint64_t f = frontier[v]) {
          for (int w : g.out(v)) next[w] |= f;
        }
      }
      bool grew = false;
      for (std::size_t v = 0; v < n; ++v) {
        next[v] &= ~seen[v];
        seen[v] |= next[v];
        grew = grew || next[v] != 0;
      }
      if (!grew) {
        best = std::max(best, level);
        break;
      }
      std::swap(frontier, next);
    }
  }
  return best;
}

// Word operations of bit_parallel_diameter when the diameter is about `depth`.
std::int64_t bit_parallel_work(const Graph& g, int depth) {
  const std::int64_t batches = (std::int64_t(g.n) + 63) / 64;
  return batches * (depth + 1) * (std::int64_t(g.n) + std::int64_t(g.targets.size()));
}

// iFUB for a connected undirected graph (see analysis.hpp).
std::optional<int> ifub_diameter(const Graph& g) {
  const std::int64_t bfs_cost = std::int64_t(g.n) + std::int64_t(g.targets.size());
  // Double sweep: from a max-degree node to its farthest a, from a to its farthest b;
  // the middle of a shortest a–b path is central.
  int start = 0;
  for (int i = 0; i < g.n; ++i) {
    if (g.out_degree(i) > g.out_degree(start)) start = i;
  }
  const auto farthest = [](const std::vector<int>& d) {
    return int(std::max_element(d.begin(), d.end()) - d.begin());
  };
  const int a = farthest(bfs_distances(g, start));
  const std::vector<int> from_a = bfs_distances(g, a);
  const int b = farthest(from_a);
  int lower = from_a[b];
  int center = b;
  for (int step = 0; step < lower / 2; ++step) {  // walk from b towards a
    for (int j : g.out(center)) {
      if (from_a[j] == from_a[center] - 1) {
        center = j;
        break;
      }
    }
  }
  const std::vector<int> from_center = bfs_distances(g, center);
  const int ecc = eccentricity(from_center);
  lower = std::max(lower, ecc);
  // iFUB BFSs allowed before the bit-parallel all-pairs search is cheaper.
  const std::int64_t all_pairs = bit_parallel_work(g, lower);
  std::int64_t budget = std::max<std::int64_t>(20, std::min(all_pairs, kMaxBfsWork) / bfs_cost);
  std::vector<std::vector<int>> level(std::size_t(ecc) + 1);
  for (int v = 0; v < g.n; ++v) level[from_center[v]].push_back(v);
  // The farthest level alone needs more BFSs than allowed: decide now.
  if (lower < 2 * ecc && std::int64_t(level[ecc].size()) > budget) {
    if (all_pairs > kMaxBfsWork) return std::nullopt;
    return bit_parallel_diameter(g);
  }
  for (int i = ecc; i >= 1; --i) {
    if (lower >= 2 * i) return lower;  // every remaining pair is within 2i
    for (int v : level[i]) {
      if (--budget < 0) {
        if (all_pairs > kMaxBfsWork) return std::nullopt;
        return bit_parallel_diameter(g);
      }
      lower = std::max(lower, eccentricity(bfs_distances(g, v)));
    }
    if (lower > 2 * (i - 1)) return lower;
  }
  return lower;
}

}  // namespace

bool is_connected(const Graph& g) {
  if (g.n == 0) return false;  // no nodes: nothing to connect, and never a valid topology
  if (g.n == 1) return true;
  // Strongly connected iff node 0 reaches every node and every node reaches node 0 (a
  // search in the transposed graph); undirected graphs are their own transpose. Two
  // linear searches with a flat queue: Boost's strong_components (Tarjan's depth-first
  // search) took 0.25 s on a ring of 10^6, and this is called for every run's summary.
  auto reaches_all = [](const Graph& h) {
    const std::vector<int> dist = bfs_distances(h, 0);
    return std::find(dist.begin(), dist.end(), -1) == dist.end();
  };
  return reaches_all(g) && (!g.directed || reaches_all(transpose(g)));
}

DegreeRange degree_range(const Graph& g) {
  DegreeRange r{g.n > 0 ? g.out_degree(0) : 0, g.n > 0 ? g.out_degree(0) : 0};
  for (int i = 1; i < g.n; ++i) {
    r.min = std::min(r.min, g.out_degree(i));
    r.max = std::max(r.max, g.out_degree(i));
  }
  return r;
}

std::vector<int> bfs_distances(const Graph& g, int source) {
  std::vector<int> dist(std::size_t(g.n), -1);
  std::vector<int> queue;
  queue.reserve(std::size_t(g.n));
  dist[source] = 0;
  queue.push_back(source);
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const int v = queue[head];
    for (int w : g.out(v)) {
      if (dist[w] < 0) {
        dist[w] = dist[v] + 1;
        queue.push_back(w);
      }
    }
  }
  return dist;
}

std::optional<int> diameter(const Graph& g, bool vertex_transitive) {
  if (!is_connected(g)) return std::nullopt;
  if (g.n <= 1) return 0;
  if (vertex_transitive) return eccentricity(bfs_distances(g, 0));
  if (g.n <= kAllPairsNodes) return bit_parallel_diameter(g);
  if (g.directed) return std::nullopt;
  return ifub_diameter(g);
}

}  // namespace dlsim::topo
