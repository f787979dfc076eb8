// The scenario's `topology` object as a topologies::GraphSchedule: parameters (the
// random kinds draw from the stream "topology" of the scenario's seed), topology
// errors turned into InputError at `topology.<key>`, and the check that the graph and its
// mixing weights are what the algorithm declares it needs (AlgorithmFacts: undirected or
// any graph; doubly stochastic W for consensus on the average, or column-stochastic push
// weights; docs/design.md §9, docs/algorithms.md §3).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"
#include "topologies/facts.hpp"
#include "topologies/schedule.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::sim {

topo::TopologyParams topology_params(const Scenario& s);

/// Where a TopologyError is reported: `topology.<key>`, or `workers`.
std::string topology_error_path(const topo::TopologyError& e);

/// Builds the topology; impossible parameters throw InputError (`topology.dims`,
/// `topology.path`, `workers`, ...).
topo::GraphSchedule build_topology(const Scenario& s);

/// The same graph, built once for a run: the scenario check, the failure check, the memory
/// estimate, the launch and the summary of one run all ask for it, and at a million workers
/// each build costs about 0.2 s. The last graph built is kept (one entry, behind a mutex) and
/// returned while the parameters are the same: kind, workers, weights, seed and the very
/// same options object (held, so its address cannot be reused by other options). The graph
/// is a function of those, so the result is the one build_topology gives.
std::shared_ptr<const topo::GraphSchedule> shared_topology(const Scenario& s);

/// Builds the topology and refuses weights the algorithm cannot work with
/// (InputError at `topology.weights`). Only for decentralized algorithms.
void check_topology_for_algorithm(const Scenario& s);

/// The facts `dlsim topology --json` prints (docs/design.md §9); unknown values (a diameter too
/// costly to compute, the λmin of a directed graph) are null.
nlohmann::json topology_facts_json(const topo::TopologyFacts& facts);

}  // namespace dlsim::sim
