// Topology generators, mixing weights and the round-by-round schedule against
// independent truth: degrees and edge counts from the definitions (docs/design.md §9),
// row/column sums, the exact averaging of one-peer-exponential after log2(n)
// rounds (docs/algorithms.md §4), seeded reproducibility, refusal of impossible input.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>

#include <Eigen/Dense>

#include "scratch_path.hpp"
#include "topologies/analysis.hpp"
#include "topologies/edge_list.hpp"
#include "topologies/facts.hpp"
#include "topologies/generators.hpp"
#include "topologies/random_graphs.hpp"
#include "topologies/registry.hpp"
#include "topologies/schedule.hpp"
#include "topologies/spectrum.hpp"
#include "topologies/topology_error.hpp"

using namespace dlsim::topo;

namespace {

GraphSchedule make(const std::string& kind, int n, void (*tweak)(TopologyParams&) = nullptr) {
  TopologyParams p;
  p.kind = kind;
  p.nodes = n;
  if (tweak) tweak(p);
  return GraphSchedule::make(p);
}

std::string key_of_error(const TopologyParams& p) {
  try {
    GraphSchedule::make(p);
  } catch (const TopologyError& e) {
    return e.key() + ": " + e.what();
  }
  return "no error";
}

// Every undirected edge stored both ways, sorted, no loops, no duplicates.
void check_well_formed(const Graph& g) {
  for (int i = 0; i < g.n; ++i) {
    const auto adj = g.out(i);
    CHECK(std::is_sorted(adj.begin(), adj.end()));
    CHECK(std::adjacent_find(adj.begin(), adj.end()) == adj.end());
    for (int j : adj) {
      CHECK(j != i);
      if (!g.directed) CHECK(g.has_arc(j, i));
    }
  }
}

std::filesystem::path write_file(const std::string& name, const std::string& text) {
  const auto path = dlsim::test::scratch_path("topology-" + name);
  std::ofstream(path) << text;
  return path;
}

}  // namespace

TEST_CASE("deterministic generators: degrees and edge counts", "[topology]") {
  struct Case {
    Graph g;
    int degree_min, degree_max;
    std::int64_t edges;
  };
  const std::vector<Case> cases = {
      {complete_graph(7), 6, 6, 21},
      {star_graph(9), 1, 8, 8},
      {ring_graph(10), 2, 2, 10},
      {ring_graph(2), 1, 1, 1},  // i+1 = i-1: merged
      {torus_graph({4, 4}), 4, 4, 32},
      {torus_graph({2, 3}), 3, 3, 9},      // the size-2 dimension gives one neighbour
      {torus_graph({3, 3, 3}), 6, 6, 81},  // 27 nodes × 6 / 2
      {grid_graph({3, 4}), 2, 4, 17},      // 3·3 + 2·4 edges
      {grid_graph({2, 2, 2}), 3, 3, 12},   // the cube
      {hypercube_graph(16), 4, 4, 32},
      {exponential_graph(16), 7, 7, 56},  // ±1, ±2, ±4, 8 (= −8)
      {exponential_graph(12), 6, 6, 36},  // ±1, ±2, ±4, ±8 = ∓4: {1,2,4,8,10,11}
      {directed_ring_graph(6), 1, 1, 6},
      {directed_exponential_graph(16), 4, 4, 64},
  };
  for (const auto& c : cases) {
    INFO("n = " << c.g.n);
    check_well_formed(c.g);
    const DegreeRange d = degree_range(c.g);
    CHECK(d.min == c.degree_min);
    CHECK(d.max == c.degree_max);
    CHECK(c.g.edges() == c.edges);
    CHECK(is_connected(c.g));
  }
}

TEST_CASE("generators connect exactly the pairs of the definition", "[topology]") {
  const Graph h = hypercube_graph(8);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      const int x = i ^ j;
      CHECK(h.has_arc(i, j) == (x != 0 && (x & (x - 1)) == 0));
    }
  }
  const Graph t = torus_graph({3, 4});  // node = 4·row + column
  CHECK(t.has_arc(0, 1));
  CHECK(t.has_arc(0, 3));  // column wrap-around
  CHECK(t.has_arc(0, 8));  // row wrap-around
  CHECK_FALSE(t.has_arc(0, 5));
  const Graph g = grid_graph({3, 4});
  CHECK_FALSE(g.has_arc(0, 3));
  CHECK_FALSE(g.has_arc(0, 8));
  CHECK(g.has_arc(5, 9));
  const Graph d = directed_exponential_graph(10);
  CHECK(std::vector<int>(d.out(3).begin(), d.out(3).end()) == std::vector<int>{1, 4, 5, 7});
  const Graph in = transpose(d);
  CHECK(std::vector<int>(in.out(3).begin(), in.out(3).end()) == std::vector<int>{1, 2, 5, 9});
}

TEST_CASE("diameters: closed forms and all-pairs BFS agree", "[topology]") {
  CHECK(diameter(ring_graph(17), true) == 8);
  CHECK(diameter(ring_graph(17), false) == 8);
  CHECK(diameter(torus_graph({4, 6}), true) == 5);
  CHECK(diameter(grid_graph({3, 4, 5}), false) == 2 + 3 + 4);
  CHECK(diameter(hypercube_graph(32), true) == 5);
  CHECK(diameter(star_graph(50), false) == 2);
  CHECK(diameter(complete_graph(5), true) == 1);
  CHECK(diameter(directed_ring_graph(9), true) == 8);
  // iFUB on graphs larger than kAllPairsNodes, against a grid's closed form and
  // against plain BFS from every node of a random graph.
  CHECK(diameter(grid_graph({50, 60}), false) == 49 + 59);
  const Graph rr = random_regular_graph(2500, 3, 5);
  int brute = 0;
  for (int s = 0; s < rr.n; ++s) {
    const auto d = bfs_distances(rr, s);
    brute = std::max(brute, *std::max_element(d.begin(), d.end()));
  }
  CHECK(diameter(rr, false) == brute);
  // Disconnected: no diameter.
  const Graph two = Graph::from_arcs(4, {{0, 1}, {2, 3}}, false);
  CHECK_FALSE(is_connected(two));
  CHECK_FALSE(diameter(two, false).has_value());
  CHECK_FALSE(is_connected(Graph::from_arcs(3, {{0, 1}, {1, 2}}, true)));  // not strongly
}

TEST_CASE("random kinds: degrees, connectivity, and the seed decides the graph", "[topology]") {
  const Graph rr = random_regular_graph(100, 5, 42);
  check_well_formed(rr);
  CHECK(degree_range(rr).min == 5);
  CHECK(degree_range(rr).max == 5);
  CHECK(rr.edges() == 250);
  CHECK(is_connected(rr));
  CHECK(random_regular_graph(100, 5, 42).targets == rr.targets);
  CHECK(random_regular_graph(100, 5, 43).targets != rr.targets);

  const Graph er = erdos_renyi_graph(200, 0.05, 7);
  check_well_formed(er);
  CHECK(is_connected(er));
  // E[edges] = p n(n−1)/2 = 995, sd ≈ 30.7: within 5 sd.
  CHECK(std::abs(double(er.edges()) - 995) < 5 * 30.7);
  // Monte Carlo over seeds where connectivity is certain (no conditioning bias):
  // mean of 100 samples of Binomial(4950, 0.3): 1485 ± 3.2 (one sd).
  double total = 0;
  for (int seed = 0; seed < 100; ++seed) total += double(erdos_renyi_graph(100, 0.3, seed).edges());
  CHECK(std::abs(total / 100 - 1485) < 4 * 3.2);
  CHECK(erdos_renyi_graph(200, 0.05, 7).targets == er.targets);
  CHECK(erdos_renyi_graph(200, 0.05, 8).targets != er.targets);

  const Graph lattice = small_world_graph(30, 4, 0.0, 1);  // p = 0: the ring lattice
  CHECK(lattice.targets == circulant_graph(30, {1, 2}, false).targets);
  const Graph sw = small_world_graph(300, 6, 0.2, 3);
  check_well_formed(sw);
  CHECK(is_connected(sw));
  CHECK(sw.edges() <= 900);  // rewiring never adds edges (duplicates merged)
  CHECK(sw.edges() > 850);
  CHECK(sw.targets != circulant_graph(300, {1, 2, 3}, false).targets);
  CHECK(small_world_graph(300, 6, 0.2, 3).targets == sw.targets);
  CHECK(small_world_graph(300, 6, 0.2, 4).targets != sw.targets);
}

TEST_CASE("random matchings: a perfect matching per round, a function of (seed, t)", "[topology]") {
  TopologyParams p;
  p.kind = "random-matching";
  p.nodes = 10;
  p.seed = 99;
  const GraphSchedule s = GraphSchedule::make(p);
  CHECK(s.time_varying());
  CHECK(s.period() == 0);
  std::set<std::vector<int>> distinct;
  for (std::int64_t t = 0; t < 30; ++t) {
    const auto r = s.round(t);
    for (int i = 0; i < 10; ++i) {
      REQUIRE(r->out.out_degree(i) == 1);
      const int j = r->out.out(i)[0];
      CHECK(r->out.out(j)[0] == i);
      const Neighborhood nb = s.neighborhood(i, t);
      CHECK(nb.in == std::vector<int>{j});
      CHECK(nb.self_weight == 0.5);
      CHECK(nb.in_weights == std::vector<double>{0.5});
    }
    distinct.insert(r->out.targets);
  }
  CHECK(distinct.size() > 20);
  // The same round from a fresh schedule (no cache) and in another order.
  const GraphSchedule again = GraphSchedule::make(p);
  CHECK(again.round(17)->out.targets == s.round(17)->out.targets);
  CHECK(random_matching_graph(10, 99, 17).targets == s.round(17)->out.targets);
  CHECK(random_matching_graph(10, 100, 17).targets != s.round(17)->out.targets);
}

TEST_CASE("mixing weights: the promised stochasticity, checked numerically", "[topology]") {
  for (const char* kind : {"complete", "star", "ring", "hypercube", "exponential", "random-regular",
                           "erdos-renyi", "small-world", "dyck"}) {
    for (const char* rule : {"metropolis", "max-degree"}) {
      INFO(kind << " " << rule);
      const int n = std::string(kind) == "dyck" ? 32 : 16;
      const TopologyParams p = topology_params(kind, n, {{"p", 0.4}}, 1, rule);
      const auto r = GraphSchedule::make(p).round(0);
      const Stochasticity st = stochasticity(r->in, r->weights);
      CHECK(st.doubly());
      CHECK(st.nonnegative);
      const Eigen::MatrixXd w = dense_weights(*r);
      CHECK((w - w.transpose()).cwiseAbs().maxCoeff() < 1e-15);  // symmetric
    }
  }
  // Uniform weights: doubly stochastic on regular graphs only.
  TopologyParams star;
  star.kind = "star";
  star.nodes = 6;
  star.weights = "uniform";
  const auto r = GraphSchedule::make(star).round(0);
  const Stochasticity st = stochasticity(r->in, r->weights);
  CHECK(st.row);
  CHECK_FALSE(st.column);
  const Eigen::MatrixXd w = dense_weights(*r);
  CHECK(w(0, 0) == Approx(1.0 / 6));
  CHECK(w(1, 0) == Approx(0.5));
  CHECK(w.col(0).sum() == Approx(1.0 / 6 + 5 * 0.5));
  // Metropolis on the star: w_0j = 1/(1 + max(5, 1)) = 1/6, leaves keep 5/6.
  star.weights = "metropolis";
  const Eigen::MatrixXd m = dense_weights(*GraphSchedule::make(star).round(0));
  CHECK(m(0, 3) == Approx(1.0 / 6));
  CHECK(m(3, 3) == Approx(5.0 / 6));
  CHECK(m(0, 0) == Approx(1.0 / 6));
}

TEST_CASE("directed kinds: column-stochastic push weights that are doubly stochastic",
          "[topology]") {
  for (const char* kind : {"directed-ring", "directed-exponential", "one-peer-exponential"}) {
    for (const char* rule : {"metropolis", "uniform", "max-degree"}) {
      for (int n : {2, 7, 16}) {
        INFO(kind << " " << rule << " n=" << n);
        TopologyParams p;
        p.kind = kind;
        p.nodes = n;
        p.weights = rule;
        const GraphSchedule s = GraphSchedule::make(p);
        CHECK(s.directed());
        const Stochasticity st = schedule_stochasticity(s);
        CHECK(st.column);
        CHECK(st.doubly());
        const Eigen::MatrixXd w = dense_weights(*s.round(0));
        const int d = s.round(0)->out.out_degree(0);
        CHECK(w(0, 0) == Approx(1.0 / (d + 1)));
        // Column j holds j's push: itself and its out-neighbours.
        for (int i : s.round(0)->out.out(0)) CHECK(w(i, 0) == Approx(1.0 / (d + 1)));
      }
    }
  }
}

TEST_CASE("one-peer-exponential: log2(n) rounds average exactly", "[topology]") {
  for (int n : {2, 4, 8, 16, 64}) {
    TopologyParams p;
    p.kind = "one-peer-exponential";
    p.nodes = n;
    const GraphSchedule s = GraphSchedule::make(p);
    const int tau = int(std::log2(n));
    REQUIRE(s.period() == tau);
    // Round t: i sends to i + 2^t, receives from i − 2^t.
    CHECK(s.neighborhood(0, n > 2 ? 1 : 0).out == std::vector<int>{n > 2 ? 2 : 1});
    CHECK(s.neighborhood(0, 0).in == std::vector<int>{n - 1});
    // Apply the schedule's own neighbourhoods and weights to n values, as dpsgd does.
    for (std::int64_t start : {0, 3}) {  // any τ consecutive rounds
      Eigen::VectorXd x = Eigen::VectorXd::LinSpaced(n, 1.0, 10.0 * n);
      x[0] = -7;
      const double mean = x.mean();
      for (std::int64_t t = start; t < start + tau; ++t) {
        Eigen::VectorXd next(n);
        for (int i = 0; i < n; ++i) {
          const Neighborhood nb = s.neighborhood(i, t);
          next[i] = nb.self_weight * x[i];
          for (std::size_t k = 0; k < nb.in.size(); ++k) next[i] += nb.in_weights[k] * x[nb.in[k]];
        }
        x = next;
      }
      CHECK((x.array() - mean).abs().maxCoeff() < 1e-12 * std::abs(mean) + 1e-12);
    }
    // And the matrix product: (1/n) 11ᵀ.
    Eigen::MatrixXd product = Eigen::MatrixXd::Identity(n, n);
    for (int t = 0; t < tau; ++t) product = dense_weights(*s.round(t)) * product;
    CHECK((product.array() - 1.0 / n).abs().maxCoeff() < 1e-15);
  }
  // n not a power of two: still doubly stochastic, period ⌈log2 n⌉, not exact.
  TopologyParams p;
  p.kind = "one-peer-exponential";
  p.nodes = 6;
  CHECK(GraphSchedule::make(p).period() == 3);
}

TEST_CASE("impossible topologies are refused and name the key", "[topology]") {
  TopologyParams p;
  p.kind = "hypercube";
  p.nodes = 12;
  CHECK_THAT(key_of_error(p),
             Catch::StartsWith("kind: hypercube needs workers to be a power of 2"));
  p = topology_params("dyck", 30);
  CHECK_THAT(key_of_error(p), Catch::StartsWith("kind: dyck is the 32-node Dyck graph: workers "
                                                "must be 32, got 30"));
  p = topology_params("torus", 16, {{"dims", {4, 3}}});
  CHECK_THAT(key_of_error(p), Catch::StartsWith("dims: product of dims must equal workers (16)"));
  p = topology_params("random-matching", 7);
  CHECK_THAT(key_of_error(p), Catch::StartsWith("workers: random-matching needs an even number"));
  p = topology_params("random-regular", 7, {{"degree", 3}});
  CHECK_THAT(key_of_error(p), Catch::Contains("workers x degree must be even"));
  p = topology_params("random-regular", 8, {{"degree", 8}});
  CHECK_THAT(key_of_error(p), Catch::StartsWith("degree: must be in [1, workers - 1]"));
  p = topology_params("erdos-renyi", 200, {{"p", 0.001}});
  CHECK_THAT(key_of_error(p), Catch::StartsWith("p: erdos-renyi: no connected sample"));
  p = topology_params("small-world", 200, {{"k", 3}, {"p", 0.001}});
  CHECK_THAT(key_of_error(p), Catch::StartsWith("k: must be even"));
  p = topology_params("ring", 200);
  p.weights = "laplacian";
  CHECK_THAT(key_of_error(p), Catch::StartsWith("weights: unknown weight rule"));
  p.kind = "moebius";
  p.weights = "metropolis";
  CHECK_THAT(key_of_error(p), Catch::StartsWith("kind: unknown topology kind"));
}

TEST_CASE("edge lists: comments, validation with file:line, connectivity", "[topology]") {
  const auto good =
      write_file("good.txt", "# a square with a diagonal\n0 1\n1 2 # side\n\n2 3\n3 0\n0 2\n2 0\n");
  const Graph g = read_edge_list(good.string(), 4);
  CHECK(g.edges() == 5);
  CHECK(degree_range(g).max == 3);
  CHECK(describe(GraphSchedule::make(topology_params("edge-list", 4, {{"path", good.string()}})))
            .diameter == 2);

  const auto failure = [&](const std::string& name, const std::string& text, int n) {
    return key_of_error(
        topology_params("edge-list", n, {{"path", write_file(name, text).string()}}));
  };
  CHECK_THAT(failure("range.txt", "0 1\n1 4\n", 4),
             Catch::Contains("range.txt:2: node id 4 is out of range [0, 3]"));
  CHECK_THAT(failure("negative.txt", "0 1\n-1 2\n", 4),
             Catch::Contains("negative.txt:2: node id -1"));
  CHECK_THAT(failure("loop.txt", "0 1\n# x\n2 2\n", 4),
             Catch::Contains("loop.txt:3: self loop 2 2"));
  CHECK_THAT(failure("junk.txt", "0 1\n1 two\n", 4),
             Catch::Contains("junk.txt:2: expected two node ids"));
  CHECK_THAT(failure("three.txt", "0 1 2\n", 4), Catch::Contains("three.txt:1: expected two"));
  CHECK_THAT(failure("split.txt", "0 1\n2 3\n", 4), Catch::Contains("not connected"));
  CHECK_THAT(failure("isolated.txt", "0 1\n1 2\n", 4), Catch::Contains("not connected"));
  CHECK_THAT(failure("empty.txt", "# nothing\n", 4), Catch::Contains("no edges"));
  CHECK_THAT(key_of_error(topology_params("edge-list", 4, {{"path", "/nonexistent/edges.txt"}})),
             Catch::StartsWith("path: cannot read edge list"));
}

TEST_CASE("neighbourhoods of static kinds are the graph's, in and out", "[topology]") {
  const GraphSchedule ring = make("ring", 5);
  const Neighborhood nb = ring.neighborhood(0, 123);
  CHECK(nb.out == std::vector<int>{1, 4});
  CHECK(nb.in == std::vector<int>{1, 4});
  CHECK(nb.self_weight == Approx(1.0 / 3));
  const GraphSchedule dring = make("directed-ring", 5);
  const Neighborhood d = dring.neighborhood(0, 0);
  CHECK(d.out == std::vector<int>{1});
  CHECK(d.in == std::vector<int>{4});
  CHECK(d.self_weight == Approx(0.5));
  CHECK(d.in_weights == std::vector<double>{0.5});
  CHECK_FALSE(dring.time_varying());
  CHECK(dring.period() == 1);
}
