// Everything `dlsim topology` prints and summary.json records about a topology
// (docs/design.md §9). For time-varying kinds, edges and degrees are those of one
// round (round 0), `connected` and `diameter` those of the union of one period's
// arcs (aperiodic kinds such as random-matching: the union over all rounds is the
// complete graph, which is connected; its diameter is not reported), and the spectrum that of the
// product of one period's matrices (spectrum.hpp). For directed kinds degrees are
// out-degrees and `connected` means strongly connected.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "topologies/mixing_weights.hpp"
#include "topologies/schedule.hpp"
#include "topologies/spectrum.hpp"

namespace dlsim::topo {

struct TopologyFacts {
  std::string kind;
  int nodes = 0;
  std::int64_t edges = 0;
  bool directed = false;
  bool time_varying = false;
  int degree_min = 0;
  int degree_max = 0;
  std::optional<int> diameter;
  std::string diameter_note;  // why no diameter is reported (aperiodic kinds), or empty
  bool connected = false;
  std::string weights;
  Spectrum spectrum;
  Stochasticity stochasticity;  // of every round checked (all rounds of a period)
};

/// Stochasticity of the weights of the rounds a period consists of (static: the
/// one round; random-matching: the first 8 rounds).
Stochasticity schedule_stochasticity(const GraphSchedule& schedule);

TopologyFacts describe(const GraphSchedule& schedule);

}  // namespace dlsim::topo
