// What the simulator sees of a topology: for round t, node i's out-neighbours
// (it sends to them), in-neighbours (it receives from them) and mixing weights,
// computed on demand, never for all rounds at once. Each kind builds its schedule
// in its own file of topologies/kinds/ (registry.hpp):
//
//   static kinds         the same graph every round (GraphSchedule::fixed, period 1)
//   time-varying kinds   round t's arcs on demand (GraphSchedule::varying), e.g.
//                        one-peer-exponential, i → i + 2^(t mod τ) (mod n) with
//                        τ = ⌈log2 n⌉ (period τ; Assran et al., "Stochastic Gradient
//                        Push", ICML 2019), and random-matching, a uniformly random
//                        perfect matching drawn from (seed, t) alone (aperiodic:
//                        period() = 0)
//
// Random kinds take the scenario's seed; see random_graphs.hpp for how it is used.
#pragma once

#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "topologies/graph.hpp"
#include "topologies/mixing_weights.hpp"

namespace dlsim::topo {

/// Node i in round t.
struct Neighborhood {
  std::vector<int> out;            // i sends its value to these
  std::vector<int> in;             // i receives from these
  double self_weight = 1.0;        // w_ii
  std::vector<double> in_weights;  // w_ij, aligned with `in`
};

/// A communication topology as the simulator uses it.
template <class T>
concept Topology = requires(const T& t, int node, std::int64_t round) {
  { t.nodes() } -> std::convertible_to<int>;
  { t.directed() } -> std::convertible_to<bool>;
  { t.time_varying() } -> std::convertible_to<bool>;
  { t.period() } -> std::convertible_to<std::int64_t>;  // 1 static, 0 aperiodic
  { t.neighborhood(node, round) } -> std::same_as<Neighborhood>;
};

/// The keys of one kind (topologies/registry.hpp: TopologyInfo::read), typed. Each
/// kind derives its own options from this.
struct TopologyOptions {
  virtual ~TopologyOptions() = default;
};

/// The scenario's `topology` object, in topology terms: the common fields and the
/// options of the kind.
struct TopologyParams {
  std::string kind = "ring";
  int nodes = 4;
  std::string weights = "metropolis";
  std::uint64_t seed = 1;
  std::shared_ptr<const TopologyOptions> options;  // null: a kind without keys

  /// The options as the kind's own type (a programming error when they are not).
  template <class Options>
  const Options& options_as() const {
    const auto* typed = dynamic_cast<const Options*>(options.get());
    if (!typed) throw std::logic_error("topology \"" + kind + "\": options of another kind");
    return *typed;
  }
};

/// Every registered kind, in name order (topologies/registry.hpp).
std::vector<std::string> topology_kinds();

/// One round's graph: arcs, their transpose, and the weights.
struct RoundGraph {
  Graph out;
  Graph in;
  MixingWeights weights;
};

class GraphSchedule {
 public:
  /// Builds the registered kind `params.kind` (topologies/registry.hpp); impossible
  /// parameters throw TopologyError.
  static GraphSchedule make(const TopologyParams& params);

  /// For the kinds' `make`: the same graph every round.
  static GraphSchedule fixed(const TopologyParams& params, Graph graph);
  /// For the kinds' `make`: round t's arcs are `arcs(t)`, asked for t in [0, period)
  /// (period 0: aperiodic, any t >= 0); `united` is the union of one period's arcs.
  static GraphSchedule varying(const TopologyParams& params, bool directed, std::int64_t period,
                               std::function<Graph(std::int64_t)> arcs,
                               std::function<Graph()> united);

  int nodes() const { return n_; }
  bool directed() const { return directed_; }
  bool time_varying() const { return time_varying_; }
  std::int64_t period() const { return period_; }
  Neighborhood neighborhood(int node, std::int64_t round) const;

  const std::string& kind() const { return kind_; }
  WeightRule rule() const { return rule_; }
  /// Every node looks the same (one BFS gives the diameter).
  bool vertex_transitive() const { return vertex_transitive_; }
  /// Every round's weight matrix is circulant (spectrum by FFT).
  bool circulant() const { return circulant_; }
  /// The graph and weights of round t (shared, cached for a few rounds).
  std::shared_ptr<const RoundGraph> round(std::int64_t t) const;
  /// The union of the arcs of one period (static: the graph; random-matching: the
  /// complete graph, which every pair reaches with positive probability).
  Graph period_union() const;

 private:
  std::shared_ptr<const RoundGraph> build_round(std::int64_t t) const;

  std::string kind_;
  int n_ = 0;
  bool directed_ = false;
  bool time_varying_ = false;
  bool vertex_transitive_ = false;
  bool circulant_ = false;
  std::int64_t period_ = 1;
  WeightRule rule_ = WeightRule::metropolis;
  std::uint64_t seed_ = 1;
  std::shared_ptr<const RoundGraph> static_round_;
  std::function<Graph(std::int64_t)> arcs_;  // time-varying kinds
  std::function<Graph()> united_;            // time-varying kinds
  mutable std::shared_ptr<std::mutex> cache_mutex_ = std::make_shared<std::mutex>();
  mutable std::map<std::int64_t, std::shared_ptr<const RoundGraph>> cache_;
};

static_assert(Topology<GraphSchedule>);

/// A round's graph with its weights (the transpose computed for directed graphs).
RoundGraph with_weights(Graph out, WeightRule rule);

}  // namespace dlsim::topo
