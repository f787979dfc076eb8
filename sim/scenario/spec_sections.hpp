// Internal to the key table (spec.cpp): one function per scenario section, each in
// its own file (spec_<section>.cpp), and the helpers they share. spec.cpp assembles
// the sections into the root object; nothing outside sim/scenario/spec*.cpp includes
// this header.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/compressor_keys.hpp"
#include "sim/scenario/spec.hpp"

namespace dlsim::sim::spec::sections {

Object data_section();       // spec_data.cpp
Object model_section();      // spec_model.cpp
Object algorithm_section();  // spec_algorithm.cpp
Object topology_section();   // spec_topology.cpp
Object network_section();    // spec_network.cpp
Object compute_section();    // spec_run.cpp: compute, stop, metrics, sweep
Object stop_section();
Object metrics_section();
Object sweep_section();

}  // namespace dlsim::sim::spec::sections
