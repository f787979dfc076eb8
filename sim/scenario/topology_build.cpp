#include "sim/scenario/topology_build.hpp"

#include <mutex>

#include "sim/engine/rng.hpp"
#include "sim/scenario/input_error.hpp"
#include "topologies/analysis.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::sim {

namespace {

template <class T>
nlohmann::json or_null(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

}  // namespace

namespace {
// Algorithms that exchange public copies both ways along every edge (the CHOCO family)
// need an undirected graph (static, or time-varying with per-neighbour copies).
void check_graph_symmetry(const Scenario& s, const topo::GraphSchedule& schedule) {
  const AlgorithmFacts& facts = s.algorithm.facts();
  if (facts.directed_graphs || !schedule.directed()) return;
  throw InputError("topology.kind", s.algorithm.kind +
                                        " needs a symmetric (undirected) graph, but " +
                                        s.topology.kind + " is directed; use " +
                                        facts.directed_alternative + " on directed graphs");
}
}  // namespace

topo::TopologyParams topology_params(const Scenario& s) {
  topo::TopologyParams p;
  p.kind = s.topology.kind;
  p.nodes = int(s.workers);
  p.weights = s.topology.weights;
  p.seed = stream_seed(s.seed, "topology");
  p.options = s.topology.options;
  return p;
}

std::string topology_error_path(const topo::TopologyError& e) {
  return e.key() == "workers" ? std::string("workers") : "topology." + e.key();
}

topo::GraphSchedule build_topology(const Scenario& s) {
  try {
    return topo::GraphSchedule::make(topology_params(s));
  } catch (const topo::TopologyError& e) {
    throw InputError(topology_error_path(e), e.what());
  }
}

namespace {

// shared_topology's one entry.
struct LastTopology {
  std::mutex mutex;
  topo::TopologyParams params;
  std::shared_ptr<const topo::GraphSchedule> graph;  // null: nothing built yet
};

bool same_graph(const topo::TopologyParams& a, const topo::TopologyParams& b) {
  return a.kind == b.kind && a.nodes == b.nodes && a.weights == b.weights && a.seed == b.seed &&
         a.options == b.options;
}

}  // namespace

std::shared_ptr<const topo::GraphSchedule> shared_topology(const Scenario& s) {
  static LastTopology last;
  topo::TopologyParams params = topology_params(s);
  const std::lock_guard lock(last.mutex);
  if (last.graph && same_graph(last.params, params)) return last.graph;
  last.graph.reset();  // the old graph goes before the new one is built
  auto graph = std::make_shared<const topo::GraphSchedule>(build_topology(s));
  last.params = std::move(params);
  last.graph = graph;
  return graph;
}

void check_topology_for_algorithm(const Scenario& s) {
  const WeightsNeeded needed = s.algorithm.facts().weights;
  if (needed == WeightsNeeded::none) return;
  const auto shared = shared_topology(s);  // held: another thread may replace the entry
  const topo::GraphSchedule& schedule = *shared;
  check_graph_symmetry(s, schedule);
  const topo::Stochasticity got = topo::schedule_stochasticity(schedule);
  const bool ok = needed == WeightsNeeded::doubly_stochastic ? got.doubly() : got.column;
  if (ok && got.nonnegative) return;
  const auto degrees = topo::degree_range(schedule.round(0)->out);
  const std::string what =
      needed == WeightsNeeded::doubly_stochastic ? "doubly stochastic" : "column-stochastic";
  const std::string has = got.doubly() ? "doubly stochastic"
                          : got.row    ? "only row-stochastic"
                          : got.column ? "only column-stochastic"
                                       : "neither row- nor column-stochastic";
  std::string why =
      " (degrees " + std::to_string(degrees.min) + ".." + std::to_string(degrees.max) + ")";
  if (s.topology.weights == "uniform") {
    why = " (degrees " + std::to_string(degrees.min) + ".." + std::to_string(degrees.max) +
          "; uniform weights are doubly stochastic only on regular graphs)";
  }
  throw InputError("topology.weights", s.algorithm.kind + " needs " + what +
                                           " mixing weights, but " + s.topology.weights +
                                           " weights on " + s.topology.kind + " are " + has + why +
                                           "; use metropolis or max-degree");
}

nlohmann::json topology_facts_json(const topo::TopologyFacts& f) {
  nlohmann::json j = nlohmann::json::object();
  j["nodes"] = f.nodes;
  j["edges"] = f.edges;
  j["directed"] = f.directed;
  j["time_varying"] = f.time_varying;
  j["degree_min"] = f.degree_min;
  j["degree_max"] = f.degree_max;
  j["diameter"] = or_null(f.diameter);
  j["connected"] = f.connected;
  j["weights"] = f.weights;
  j["spectral_gap"] = or_null(f.spectrum.spectral_gap);
  j["lambda2"] = or_null(f.spectrum.lambda2);
  j["lambda_min"] = or_null(f.spectrum.lambda_min);
  return j;
}

}  // namespace dlsim::sim
