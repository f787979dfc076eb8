// Internal to to_scenario (to_scenario.cpp): per scenario section, the reading of the
// resolved JSON into the typed Scenario and the checks that involve several keys, each
// section in its own file (to_scenario_<section>.cpp). to_scenario.cpp calls them in a
// fixed order; nothing outside sim/scenario/to_scenario*.cpp includes this header.
// Every check throws InputError at the JSON path of the offending key.
#pragma once

#include <cmath>

#include <nlohmann/json.hpp>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/quantity.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim::scenario_sections {

/// A size quantity ("64B", bits) as a whole number of bits.
inline Bits to_bits(const nlohmann::json& value) {
  return Bits(std::llround(parse_size_bits(value)));
}

// to_scenario_data.cpp: the source reads its own options; which data each model can use.
void read_data(const nlohmann::json& j, DataSpec& d);
void check_data(const Scenario& s);

// to_scenario_model.cpp: the kind reads its own options (resnet depth 6n + 2 is checked
// while reading).
void read_model(const nlohmann::json& j, ModelSpec& m);
/// `object` with the values of its quantity-typed `keys` (time, rate, size, flops) in SI
/// base units, as the registered kinds read them (a time in seconds).
nlohmann::json in_base_units(const nlohmann::json& object,
                             const std::vector<dlsim::spec::Key>& keys);

// to_scenario_algorithm.cpp: collectives, compressors, the SVRG family, gossip kinds and
// learning-rate schedules.
void read_algorithm(const nlohmann::json& j, AlgorithmSpec& a);
void check_algorithm(const Scenario& s);

// to_scenario_topology.cpp: the kind's own checks (lattice sizes); the graph against
// the algorithm.
void read_topology(const nlohmann::json& j, TopologySpec& t);
void check_topology_kind(const Scenario& s);
void check_topology(const Scenario& s);

// to_scenario_network.cpp: node and link ids, scheduled changes and outages.
void read_network(const nlohmann::json& j, NetworkSpec& n);
void check_network(const Scenario& s);

// to_scenario_run.cpp: compute, stop and metrics.
void read_compute(const nlohmann::json& j, ComputeSpec& c);
void check_compute(const Scenario& s);
void read_stop(const nlohmann::json& j, StopSpec& s);
void read_metrics(const nlohmann::json& j, MetricsSpec& m);
void check_per_worker_metrics(const Scenario& s);
void check_save_model(const Scenario& s);

}  // namespace dlsim::sim::scenario_sections
