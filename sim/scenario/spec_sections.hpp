// Internal to the key table (spec.cpp): one function per scenario section, each in
// its own file (spec_<section>.cpp), and the helpers they share. spec.cpp assembles
// the sections into the root object; nothing outside sim/scenario/spec*.cpp includes
// this header.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

#include "sim/scenario/spec.hpp"

namespace dlsim::sim::spec::sections {

/// The value at root.a.b... when every step exists, else null (for dynamic defaults).
inline nlohmann::json lookup(const nlohmann::json& root, std::initializer_list<const char*> path) {
  const nlohmann::json* at = &root;
  for (const char* step : path) {
    if (!at->is_object() || !at->contains(step)) return nullptr;
    at = &(*at)[step];
  }
  return *at;
}

/// A string key that names a kind, with its default.
inline Key kind_key(std::string name, nlohmann::json fallback, std::string doc) {
  return defaulted(std::move(name), string(), std::move(fallback), std::move(doc));
}

Object data_section();       // spec_data.cpp
Object model_section();      // spec_model.cpp
Object compressor_object();  // spec_compressor.cpp: algorithm.compressor, downlink_compressor
Object algorithm_section();  // spec_algorithm.cpp
Object topology_section();   // spec_topology.cpp
Object network_section();    // spec_network.cpp
Object compute_section();    // spec_run.cpp: compute, stop, metrics, sweep
Object stop_section();
Object metrics_section();
Object sweep_section();

}  // namespace dlsim::sim::spec::sections
