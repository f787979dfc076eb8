// The lookups every algorithm shares: the launch of the registered kind, the nodes and
// model holders of a run, and its communication graph.
#include "sim/algorithms/algorithms.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/topology_build.hpp"

namespace dlsim::sim {

namespace {
bool uses_server(const Scenario& s) {
  return !s.decentralized() && s.algorithm.collective == "parameter-server";
}
}  // namespace

int model_holders(const Scenario& s) {
  return s.decentralized() ? int(s.workers) : 1;
}

std::shared_ptr<const topo::GraphSchedule> communication_graph(const Scenario& s) {
  return shared_topology(s);
}

int node_count(const Scenario& s) {
  return int(s.workers) + (uses_server(s) ? 1 : 0);
}

void launch_algorithm(Engine& engine, Training& t) {
  algorithm_info(t.scenario.algorithm.kind).launch(engine, t);
}

}  // namespace dlsim::sim
