// centralized.hpp: the shared `collective` key and SGD's launch by collective.
#include "sim/algorithms/centralized.hpp"

#include <stdexcept>

#include "sim/algorithms/algorithms.hpp"

namespace dlsim::sim {

spec::Key collective_key(std::string doc) {
  using namespace spec;
  return defaulted("collective", one_of({"parameter-server", "allgather", "ring-allreduce"}),
                   "parameter-server", std::move(doc));
}

// The all-reducible compressors are named by hand, here and in kinds/sgd.cpp: the key
// tables are built by static initializers, possibly before the compressors register, so
// models::all_reducible_kinds() cannot be asked yet. tests/scenario_test.cpp checks the
// names against it.
std::string aggregate_collective_doc() {
  return "How messages are combined: a parameter server (node id = workers), allgather, or "
         "ring all-reduce (all-reducible compressors only: none, fp16; no error feedback). The "
         "svrg kinds' server sends back the aggregate (fp32 unless downlink_compressor).";
}

void launch_sgd(Engine& engine, Training& t) {
  const std::string& collective = t.scenario.algorithm.collective;
  if (collective == "parameter-server") return launch_sgd_parameter_server(engine, t);
  if (collective == "allgather") return launch_sgd_allgather(engine, t);
  if (collective == "ring-allreduce") return launch_sgd_ring_allreduce(engine, t);
  throw std::logic_error("no collective " + collective);
}

}  // namespace dlsim::sim
