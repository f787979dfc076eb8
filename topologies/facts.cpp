#include "topologies/facts.hpp"

#include "topologies/analysis.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {

namespace {

std::int64_t rounds_to_check(const GraphSchedule& s) {
  return s.period() > 0 ? s.period() : 8;
}

}  // namespace

Stochasticity schedule_stochasticity(const GraphSchedule& s) {
  Stochasticity all{true, true, true};
  for (std::int64_t t = 0; t < rounds_to_check(s); ++t) {
    const auto r = s.round(t);
    const Stochasticity one = stochasticity(r->in, r->weights);
    all.row = all.row && one.row;
    all.column = all.column && one.column;
    all.nonnegative = all.nonnegative && one.nonnegative;
  }
  return all;
}

TopologyFacts describe(const GraphSchedule& s) {
  TopologyFacts f;
  f.kind = s.kind();
  f.nodes = s.nodes();
  f.directed = s.directed();
  f.time_varying = s.time_varying();
  f.weights = weight_rule_name(s.rule());
  const auto round0 = s.round(0);
  f.edges = round0->out.edges();
  const DegreeRange degrees = degree_range(round0->out);
  f.degree_min = degrees.min;
  f.degree_max = degrees.max;
  f.stochasticity = schedule_stochasticity(s);
  if (s.period() == 0) {  // aperiodic: the kind knows its spectrum (random-matching)
    const TopologyInfo& info = topology_info(s.kind());
    f.connected = true;
    f.diameter_note = info.diameter_note;
    if (info.spectrum) {
      f.spectrum = info.spectrum(s.nodes());
    } else {
      f.spectrum.method = "not computed: no spectral method for this kind";
    }
    return f;
  }
  const Graph united = s.period_union();
  f.connected = is_connected(united);
  f.diameter = diameter(united, s.vertex_transitive());
  if (!s.directed() && !s.time_varying() && s.circulant() && s.nodes() >= 2) {
    // Exact and O(n · degree), instead of O(n³) dense or seconds of Lanczos at 10^6 nodes.
    f.spectrum = symmetric_circulant_spectrum(*round0);
  } else if (!s.directed() && !s.time_varying()) {
    f.spectrum = symmetric_spectrum(*round0, s.rule(), f.diameter);
  } else if (s.circulant()) {
    std::vector<std::shared_ptr<const RoundGraph>> rounds;
    for (std::int64_t t = 0; t < s.period(); ++t) rounds.push_back(s.round(t));
    f.spectrum = circulant_product_spectrum(rounds);
  } else {
    f.spectrum.method = "not computed: no spectral method for this kind";
  }
  return f;
}

}  // namespace dlsim::topo
