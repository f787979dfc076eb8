#include <stdexcept>

#include "sim/algorithms/algorithms.hpp"
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

topo::GraphSchedule communication_graph(const Scenario& s) {
  return build_topology(s);
}

int node_count(const Scenario& s) {
  return int(s.workers) + (uses_server(s) ? 1 : 0);
}

void launch_algorithm(Engine& engine, Training& t) {
  const Scenario& s = t.scenario;
  if (s.algorithm.kind == "dpsgd") return launch_dpsgd(engine, t);
  if (s.algorithm.kind == "choco-sgd" || s.algorithm.kind == "adag-sgd" ||
      s.algorithm.kind == "choco-gossip")
    return launch_choco(engine, t);
  if (s.algorithm.kind == "sgp") return launch_sgp(engine, t);
  if (s.algorithm.kind == "choco-sgp" || s.algorithm.kind == "adag-sgp")
    return launch_compressed_push_sum(engine, t);
  if (s.algorithm.kind == "svrg" || s.algorithm.kind == "lpc-svrg") return launch_svrg(engine, t);
  if (s.algorithm.kind == "alpc-svrg") return launch_alpc_svrg(engine, t);
  if (s.algorithm.sgd_family()) {  // qsgd and ef-sgd: sgd with their compressor
    if (s.algorithm.collective == "parameter-server") return launch_sgd_parameter_server(engine, t);
    if (s.algorithm.collective == "allgather") return launch_sgd_allgather(engine, t);
    if (s.algorithm.collective == "ring-allreduce") return launch_sgd_ring_allreduce(engine, t);
  }
  throw std::logic_error("no launcher for algorithm " + s.algorithm.kind);
}

}  // namespace dlsim::sim
