// The scenario's `topology` object as a topologies::GraphSchedule: parameters (the
// random kinds draw from the stream "topology" of the scenario's seed), topology
// errors turned into InputError at `topology.<key>`, and the check that the mixing
// weights are what the algorithm needs (DESIGN.md §9, ALGORITHMS.md §3):
//   dpsgd, choco-sgd, adag-sgd, choco-gossip  doubly stochastic W (consensus on
//                                             the average)
//   sgp, choco-sgp, adag-sgp                  column-stochastic push weights
// A new algorithm declares its need in `weights_needed` (topology_build.cpp).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "topologies/facts.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

enum class WeightsNeeded { none, column_stochastic, doubly_stochastic };

/// What algorithm kind `kind` needs of the mixing weights (none: centralized).
WeightsNeeded weights_needed(const std::string& algorithm_kind);

topo::TopologyParams topology_params(const Scenario& s);

/// Builds the topology; impossible parameters throw InputError (`topology.dims`,
/// `topology.path`, `workers`, ...).
topo::GraphSchedule build_topology(const Scenario& s);

/// Builds the topology and refuses weights the algorithm cannot work with
/// (InputError at `topology.weights`). Only for decentralized algorithms.
void check_topology_for_algorithm(const Scenario& s);

/// The facts `dlsim topology --json` prints (DESIGN.md §9); unknown values (a diameter too costly
/// to compute, the λmin of a directed graph) are null.
nlohmann::json topology_facts_json(const topo::TopologyFacts& facts);

}  // namespace dlsim::sim
