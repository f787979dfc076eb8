// The topology registry (topologies/registry.hpp): every registered kind builds a
// graph, and the facts it declares (directed, time-varying, vertex-transitive,
// circulant) hold for the graphs it builds, checked from the arcs and weights
// themselves; and a kind registered here, in the test alone, is in the key table and
// works in a scenario like a built-in one (docs/design.md §9).

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <Eigen/Dense>

#include "scenario_helpers.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/spec.hpp"
#include "sim/scenario/topology_build.hpp"
#include "topologies/analysis.hpp"
#include "topologies/registry.hpp"
#include "topologies/spectrum.hpp"
#include "topologies/topology_error.hpp"

using namespace dlsim::topo;
using dlsim::test::check_rejected;
using nlohmann::json;

namespace {

// A kind that exists only in this test: the path graph with chords, i ~ i + h for
// 1 <= h <= hops (no wrap-around).
struct LineOptions : TopologyOptions {
  int hops = 1;
};

const TopologyRegistration test_line{{
    .name = "test-line",
    .doc = "Test only: i ~ i + h for h = 1..hops, no wrap-around.",
    .keys = {dlsim::spec::defaulted("hops", dlsim::spec::integer().ge(1), 1,
                                    "Longest link, in steps along the line.")},
    .read =
        [](const json& j) {
          auto o = std::make_shared<LineOptions>();
          o->hops = int(j.at("hops").get<std::int64_t>());
          return std::shared_ptr<const TopologyOptions>(std::move(o));
        },
    .check =
        [](const TopologyParams& p) {
          if (p.options_as<LineOptions>().hops >= p.nodes)
            throw TopologyError("hops", "must be < workers (" + std::to_string(p.nodes) + ")");
        },
    .make =
        [](const TopologyParams& p) {
          const int hops = p.options_as<LineOptions>().hops;
          std::vector<std::pair<int, int>> edges;
          for (int i = 0; i < p.nodes; ++i) {
            for (int h = 1; h <= hops && i + h < p.nodes; ++h) edges.emplace_back(i, i + h);
          }
          return GraphSchedule::fixed(p, Graph::from_arcs(p.nodes, edges, false));
        },
}};

std::string edge_list_file() {
  const auto path = dlsim::test::scratch_path("topology-registry-edges");
  std::ofstream out(path);
  for (int i = 0; i < 16; ++i)
    out << i << " " << (i + 1) % 16 << "\n" << i << " " << (i + 5) % 16 << "\n";
  return path.string();
}

// Values for the required keys of the kinds that have them, on 16 nodes.
json required_keys(const TopologyInfo& info) {
  static const std::string edges = edge_list_file();
  json keys = json::object();
  for (const dlsim::spec::Key& key : info.keys) {
    if (key.presence != dlsim::spec::Key::Presence::required) continue;
    if (key.name == "dims") {
      keys["dims"] = {4, 4};
    } else if (key.name == "path") {
      keys["path"] = edges;
    } else {
      FAIL("no test value for required key " << key.name << " of " << info.name);
    }
  }
  return keys;
}

bool symmetric(const Graph& g) {
  for (int i = 0; i < g.n; ++i) {
    for (int j : g.out(i)) {
      if (!g.has_arc(j, i)) return false;
    }
  }
  return true;
}

// W_ij depends on (j - i) mod n only.
bool circulant(const Eigen::MatrixXd& w) {
  const int n = int(w.rows());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      if (std::abs(w(i, j) - w(0, (j - i + n) % n)) > 1e-15) return false;
    }
  }
  return true;
}

}  // namespace

TEST_CASE("the registry lists every kind once, in name order, as the key table does",
          "[topology][registry]") {
  const std::vector<std::string> kinds = topology_kinds();
  CHECK(std::is_sorted(kinds.begin(), kinds.end()));
  CHECK(std::adjacent_find(kinds.begin(), kinds.end()) == kinds.end());
  for (const char* builtin : {"complete", "ring", "torus", "grid", "one-peer-exponential",
                              "random-matching", "directed-exponential", "edge-list"})
    CHECK(std::count(kinds.begin(), kinds.end(), builtin) == 1);
  const dlsim::spec::Object& root = dlsim::sim::spec::scenario();
  const dlsim::spec::Key* topology = nullptr;
  for (const auto& key : root.keys) {
    if (key.name == "topology") topology = &key;
  }
  REQUIRE(topology);
  REQUIRE(topology->value.object);
  CHECK(topology->value.object->variant_names() == kinds);
  CHECK(topology->value.object->discriminator->value.choices == kinds);
}

TEST_CASE("every registered kind builds a graph whose shape matches its declared facts",
          "[topology][registry]") {
  for (const TopologyInfo* info : TopologyRegistry::instance().all()) {
    INFO(info->name);
    // 16: a power of 2, even, a 4 x 4 lattice: valid for every kind but the 32-node Dyck graph
    const int n = info->name == "dyck" ? 32 : 16;
    const GraphSchedule s =
        GraphSchedule::make(topology_params(info->name, n, required_keys(*info)));
    REQUIRE(s.nodes() == n);
    CHECK(s.kind() == info->name);
    CHECK(s.directed() == info->facts.directed);
    CHECK(s.time_varying() == info->facts.time_varying);
    // vertex_transitive() and circulant() are copied from the facts; the facts themselves
    // are checked against the built graph below.
    const auto r0 = s.round(0), r1 = s.round(1);
    // Directed: some arc has no reverse, in some round; undirected: none ever does.
    bool one_way = false;
    for (std::int64_t t = 0; t < 4; ++t) one_way = one_way || !symmetric(s.round(t)->out);
    CHECK(one_way == info->facts.directed);
    // Time-varying: rounds 0 and 1 differ; static: period 1, one graph for every round.
    if (info->facts.time_varying) {
      CHECK(r0->out.targets != r1->out.targets);
      CHECK(s.period() != 1);
    } else {
      CHECK(s.period() == 1);
      CHECK(s.round(7)->out.targets == r0->out.targets);
    }
    // Vertex-transitive graphs are regular.
    if (info->facts.vertex_transitive) {
      const DegreeRange d = degree_range(r0->out);
      CHECK(d.min == d.max);
    }
    // Circulant: every round's weight matrix is.
    if (info->facts.circulant) {
      CHECK(circulant(dense_weights(*r0)));
      CHECK(circulant(dense_weights(*r1)));
    }
    // The default (metropolis) weights are column-stochastic on every kind.
    const Stochasticity st = stochasticity(r0->in, r0->weights);
    CHECK(st.column);
    CHECK(st.nonnegative);
  }
}

TEST_CASE("a kind registered outside topologies/ is a scenario kind like any other",
          "[topology][registry]") {
  // In the key table: the kind, its doc and its key.
  const std::string md = dlsim::sim::spec::reference_markdown();
  CHECK_THAT(md, Catch::Contains("test-line"));
  CHECK_THAT(md, Catch::Contains("| `topology.hops` |"));
  // Loaded, defaulted, checked and built through the scenario, for an algorithm that
  // needs doubly stochastic weights (checked at load).
  const json raw = {{"workers", 6},
                    {"algorithm", {{"kind", "dpsgd"}}},
                    {"topology", {{"kind", "test-line"}, {"hops", 2}}}};
  const dlsim::sim::Scenario s = dlsim::sim::load_scenario(raw);
  CHECK(s.topology.kind == "test-line");
  CHECK(s.resolved["topology"]["weights"] == "metropolis");
  const GraphSchedule g = dlsim::sim::build_topology(s);
  // 6 nodes, hops 2: 5 + 4 edges; node 0 ~ {1, 2}, node 3 ~ {1, 2, 4, 5}.
  CHECK(g.round(0)->out.edges() == 9);
  const auto n0 = g.round(0)->out.out(0), n3 = g.round(0)->out.out(3);
  CHECK(std::vector<int>(n0.begin(), n0.end()) == std::vector<int>{1, 2});
  CHECK(std::vector<int>(n3.begin(), n3.end()) == std::vector<int>{1, 2, 4, 5});
  // Metropolis: w_01 = 1/(1 + max(2, 3)) = 1/4.
  CHECK(dense_weights(*g.round(0))(0, 1) == Approx(0.25));
  // Its default and its checks, with the scenario's paths.
  const dlsim::sim::Scenario d =
      dlsim::sim::load_scenario(json{{"workers", 6}, {"topology", {{"kind", "test-line"}}}});
  CHECK(d.resolved["topology"]["hops"] == 1);
  check_rejected(R"({"workers": 6, "topology": {"kind": "test-line", "hops": 0}})", "topology.hops",
                 "must be >= 1");
  check_rejected(R"({"workers": 6, "topology": {"kind": "test-line", "hops": 6}})", "topology.hops",
                 "must be < workers (6)");
  check_rejected(R"({"topology": {"kind": "test-lin"}})", "topology.kind",
                 "(did you mean \"test-line\"?)");
}

TEST_CASE("shared_topology builds a run's graph once and rebuilds when a parameter changes",
          "[topology][scenario]") {
  using dlsim::sim::load_scenario;
  using dlsim::sim::shared_topology;
  const auto arcs = [](const GraphSchedule& g) {
    std::vector<std::vector<int>> out;
    for (int i = 0; i < g.nodes(); ++i) {
      const auto o = g.round(0)->out.out(i);
      out.emplace_back(o.begin(), o.end());
    }
    return out;
  };
  const json raw = {{"workers", 12},
                    {"seed", 3},
                    {"algorithm", {{"kind", "dpsgd"}}},
                    {"topology", {{"kind", "random-regular"}, {"degree", 3}}}};
  const dlsim::sim::Scenario s = load_scenario(raw);
  const auto first = shared_topology(s);
  // The same scenario, or a copy of it: the same graph object, and the graph a build gives.
  CHECK(shared_topology(s) == first);
  const dlsim::sim::Scenario copy = s;
  CHECK(shared_topology(copy) == first);
  CHECK(arcs(*first) == arcs(dlsim::sim::build_topology(s)));
  // Each parameter changed on its own (a copy keeps the options object): a new graph, the
  // one a build gives.
  dlsim::sim::Scenario more = s, reseeded = s, reweighted = s;
  more.workers = 14;
  reseeded.seed = 4;
  reweighted.topology.weights = "max-degree";
  for (const dlsim::sim::Scenario* o : {&more, &reseeded, &reweighted}) {
    REQUIRE(o->topology.options == s.topology.options);
    const auto base = shared_topology(s);  // the entry holds s's graph again
    const auto g = shared_topology(*o);
    CHECK(g != base);
    CHECK(arcs(*g) == arcs(dlsim::sim::build_topology(*o)));
    CHECK(g->nodes() == int(o->workers));
    CHECK(g->rule() == dlsim::sim::build_topology(*o).rule());
  }
  CHECK(shared_topology(more)->nodes() == 14);
  CHECK(arcs(*shared_topology(reseeded)) != arcs(*first));
  CHECK(shared_topology(reweighted)->rule() != first->rule());
  // Other options (the same values parsed again count as other options): built again.
  json wider = raw;
  wider["topology"]["degree"] = 5;
  const dlsim::sim::Scenario five_scenario = load_scenario(wider);  // its check builds its graph
  CHECK(shared_topology(s)->round(0)->out.out(0).size() == 3);
  CHECK(shared_topology(five_scenario)->round(0)->out.out(0).size() == 5);
  // A kind without options parsed again: the same parameters, the same graph.
  const json ring = {
      {"workers", 10}, {"algorithm", {{"kind", "dpsgd"}}}, {"topology", {{"kind", "ring"}}}};
  const auto ring_graph = shared_topology(load_scenario(ring));
  CHECK(shared_topology(load_scenario(ring)) == ring_graph);
  // Another kind without options: built, though its other parameters are the same.
  dlsim::sim::Scenario complete = load_scenario(ring);
  complete.topology.kind = "complete";
  REQUIRE(complete.topology.options == nullptr);
  (void)shared_topology(load_scenario(ring));
  CHECK(shared_topology(complete)->round(0)->out.out(0).size() == 9);
}
