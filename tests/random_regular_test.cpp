// The random-regular generator (topologies/random_graphs.hpp) against independent truth:
// for every n ≤ 24 and every degree d a connected d-regular graph exists for, the result
// is simple, d-regular and connected, checked here from the CSR arrays with our own
// breadth-first search; impossible combinations are refused; degrees near n − 1 (which
// used to make the generator give up and return an empty graph) give a graph and its
// facts; the directly drawn cases (d = 2 cycles, complements of perfect matchings) are
// uniform over their graphs (chi-square).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "topologies/analysis.hpp"
#include "topologies/facts.hpp"
#include "topologies/random_graphs.hpp"
#include "topologies/registry.hpp"
#include "topologies/schedule.hpp"
#include "topologies/topology_error.hpp"

using namespace dlsim::topo;

namespace {

// True when g is a simple undirected d-regular graph on n nodes: sorted adjacency, no
// loop, no repeated neighbour, every edge stored both ways.
bool simple_regular(const Graph& g, int n, int d) {
  if (g.n != n || g.directed || g.offsets.size() != std::size_t(n) + 1) return false;
  if (g.targets.size() != std::size_t(n) * std::size_t(d)) return false;
  for (int i = 0; i < n; ++i) {
    const auto adj = g.out(i);
    if (int(adj.size()) != d) return false;
    for (std::size_t k = 0; k < adj.size(); ++k) {
      const int j = adj[k];
      if (j < 0 || j >= n || j == i) return false;
      if (k > 0 && adj[k - 1] >= j) return false;
      const auto back = g.out(j);
      if (std::find(back.begin(), back.end(), i) == back.end()) return false;
    }
  }
  return true;
}

bool connected_by_bfs(const Graph& g) {
  if (g.n == 0) return false;
  std::vector<char> seen(std::size_t(g.n), 0);
  std::vector<int> queue{0};
  seen[0] = 1;
  for (std::size_t head = 0; head < queue.size(); ++head) {
    for (int j : g.out(queue[head])) {
      if (!seen[std::size_t(j)]) {
        seen[std::size_t(j)] = 1;
        queue.push_back(j);
      }
    }
  }
  return int(queue.size()) == g.n;
}

std::string refusal(int n, int d) {
  try {
    random_regular_graph(n, d, 1);
  } catch (const TopologyError& e) {
    return e.key() + ": " + e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("random-regular: every n <= 24 and every possible degree", "[topology][random-regular]") {
  int cases = 0;
  for (int n = 2; n <= 24; ++n) {
    for (int d = 1; d < n; ++d) {
      if ((n * d) % 2 != 0 || (d == 1 && n > 2)) continue;
      for (std::uint64_t seed : {1, 2, 3, 4, 5}) {
        INFO("n = " << n << ", d = " << d << ", seed = " << seed);
        const Graph g = random_regular_graph(n, d, seed);
        REQUIRE(simple_regular(g, n, d));
        REQUIRE(connected_by_bfs(g));
        ++cases;
      }
    }
  }
  CHECK(cases == 5 * 199);  // 199 pairs (n, d): n·d even, 2 ≤ d < n, and (2, 1)
}

TEST_CASE("random-regular: degrees near n - 1, and their facts", "[topology][random-regular]") {
  for (const auto& [n, d] : std::vector<std::pair<int, int>>{
           {200, 198}, {200, 190}, {100, 98}, {50, 48}, {200, 100}, {201, 100}, {200, 3}}) {
    INFO("n = " << n << ", d = " << d);
    const Graph g = random_regular_graph(n, d, 7);
    REQUIRE(simple_regular(g, n, d));
    REQUIRE(connected_by_bfs(g));
    CHECK(random_regular_graph(n, d, 7).targets == g.targets);  // a function of the seed
    CHECK(random_regular_graph(n, d, 8).targets != g.targets);
    TopologyParams p = topology_params("random-regular", n, {{"degree", d}}, 7);
    const TopologyFacts f = describe(GraphSchedule::make(p));
    CHECK(f.connected);
    CHECK(f.degree_min == d);
    CHECK(f.degree_max == d);
    CHECK(f.edges == std::int64_t(n) * d / 2);
    CHECK(f.spectrum.spectral_gap.value_or(0) > 0);
  }
}

TEST_CASE("random-regular: impossible degrees are refused", "[topology][random-regular]") {
  CHECK(refusal(7, 3).starts_with("degree: workers x degree must be even"));
  CHECK(refusal(8, 8).starts_with("degree: must be in [1, workers - 1]"));
  CHECK(refusal(8, 0).starts_with("degree: must be in [1, workers - 1]"));
  CHECK(refusal(8, 1).starts_with("degree: degree 1 on 8 workers is a perfect matching"));
  CHECK(refusal(2, 1) == "no error");
  // The kind's check refuses them at scenario load, before any graph is drawn.
  const TopologyInfo& info = topology_info("random-regular");
  REQUIRE(info.check);
  CHECK_THROWS_AS(info.check(topology_params("random-regular", 7, {{"degree", 3}})), TopologyError);
  CHECK_THROWS_AS(info.check(topology_params("random-regular", 10, {{"degree", 1}})),
                  TopologyError);
  CHECK_NOTHROW(info.check(topology_params("random-regular", 10, {{"degree", 9}})));
}

TEST_CASE("an empty graph is not connected", "[topology]") {
  CHECK_FALSE(is_connected(Graph{}));
  CHECK(is_connected(Graph::from_arcs(1, {}, false)));
}

TEST_CASE("random-regular: the directly drawn cases are uniform", "[topology][random-regular]") {
  // Chi-square of the graphs over 6,000 seeds against the uniform law.
  const auto chi2 = [](int n, int d, std::size_t graphs) {
    std::map<std::vector<int>, int> count;
    constexpr int kSeeds = 6000;
    for (int seed = 0; seed < kSeeds; ++seed) ++count[random_regular_graph(n, d, seed).targets];
    REQUIRE(count.size() == graphs);
    const double expected = double(kSeeds) / double(graphs);
    double sum = 0;
    for (const auto& [g, c] : count) sum += (c - expected) * (c - expected) / expected;
    return sum;
  };
  // n = 5, d = 2: the 4!/2 = 12 Hamiltonian cycles (drawn as a shuffled cycle).
  CHECK(chi2(5, 2, 12) < 31.26);  // the 0.999 quantile of chi-square, 11 degrees of freedom
  // n = 4, d = 2: the complements of the 3 perfect matchings (drawn by pairing).
  CHECK(chi2(4, 2, 3) < 13.82);  // 2 degrees of freedom
  // n = 6, d = 4: the complements of the 15 perfect matchings.
  CHECK(chi2(6, 4, 15) < 36.12);  // 14 degrees of freedom
}
