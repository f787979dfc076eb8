// The topology registry (spec/registry.hpp): every kind of communication graph
// declares, from its own .cpp in topologies/kinds/, its name, its keys (the extra
// keys of the scenario's `topology` object for this kind), its facts, how it reads
// those keys into typed options, its cross-key checks and how it builds its graph
// schedule. GraphSchedule::make, the key table (sim/scenario/spec_topology.cpp),
// scenario loading and `dlsim topology` only look kinds up here; no other file lists
// topology kinds (docs/design.md §9).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/key_table.hpp"
#include "spec/registry.hpp"
#include "topologies/schedule.hpp"
#include "topologies/spectrum.hpp"

namespace dlsim::topo {

/// What the rest of the simulator may assume about every graph of a kind.
struct TopologyKindFacts {
  bool directed = false;           // arcs one way (push weights, column-stochastic)
  bool time_varying = false;       // a different graph in different rounds
  bool vertex_transitive = false;  // every node looks the same (one BFS gives the diameter)
  bool circulant = false;          // every round's weight matrix is circulant (FFT spectrum)
};

struct TopologyInfo {
  std::string name;
  std::string doc;  // one sentence for the scenario reference
  /// The keys this kind accepts besides the common `weights`.
  std::vector<spec::Key> keys;
  TopologyKindFacts facts;
  /// The resolved `topology` object (defaults filled in) -> this kind's options;
  /// null for kinds without keys.
  std::function<std::shared_ptr<const TopologyOptions>(const nlohmann::json&)> read;
  /// Cross-key checks at scenario load (throw TopologyError at the key, relative to
  /// `topology`, e.g. "dims[0]"); may be null.
  std::function<void(const TopologyParams&)> check;
  /// Builds the schedule (GraphSchedule::fixed or ::varying); impossible parameters
  /// throw TopologyError.
  std::function<GraphSchedule(const TopologyParams&)> make;
  /// Aperiodic kinds (period 0), whose period union says nothing: the spectrum known
  /// in closed form, and why the diameter is not reported.
  std::function<Spectrum(int nodes)> spectrum;
  std::string diameter_note;
};

using TopologyRegistry = spec::Registry<TopologyInfo>;
using TopologyRegistration = spec::Registration<TopologyInfo>;

/// The registered kind `kind` (a programming error when unknown).
inline const TopologyInfo& topology_info(const std::string& kind) {
  return TopologyRegistry::instance().at(kind);
}

/// Parameters for `kind` on `nodes` nodes with the kind's keys given in `keys` (the
/// others at their defaults), read by the kind itself: for tests, benchmarks and
/// tools that build graphs without a scenario. An unknown kind is a programming error.
TopologyParams topology_params(const std::string& kind, int nodes,
                               const nlohmann::json& keys = nlohmann::json::object(),
                               std::uint64_t seed = 1, const std::string& weights = "metropolis");

}  // namespace dlsim::topo
