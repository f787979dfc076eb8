#include "topologies/schedule.hpp"

#include <stdexcept>
#include <string>

#include "topologies/registry.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {

namespace {

constexpr std::size_t kCachedRounds = 16;

}  // namespace

std::vector<std::string> topology_kinds() {
  return TopologyRegistry::instance().names();
}

TopologyParams topology_params(const std::string& kind, int nodes, const nlohmann::json& keys,
                               std::uint64_t seed, const std::string& weights) {
  const TopologyInfo& info = topology_info(kind);
  nlohmann::json resolved = keys;
  resolved["kind"] = kind;
  resolved["weights"] = weights;
  for (const spec::Key& key : info.keys) {
    if (!resolved.contains(key.name) && key.presence == spec::Key::Presence::defaulted)
      resolved[key.name] = key.fallback;
  }
  TopologyParams p;
  p.kind = kind;
  p.nodes = nodes;
  p.weights = weights;
  p.seed = seed;
  if (info.read) p.options = info.read(resolved);
  return p;
}

RoundGraph with_weights(Graph out, WeightRule rule) {
  RoundGraph r;
  r.in = transpose(out);
  r.out = std::move(out);
  r.weights = mixing_weights(r.out, r.in, rule);
  return r;
}

GraphSchedule GraphSchedule::make(const TopologyParams& p) {
  weight_rule(p.weights);  // an unknown rule before an unknown kind
  const TopologyInfo* info = TopologyRegistry::instance().find(p.kind);
  if (!info) throw TopologyError("kind", "unknown topology kind \"" + p.kind + "\"");
  GraphSchedule s = info->make(p);
  s.vertex_transitive_ = info->facts.vertex_transitive;
  s.circulant_ = info->facts.circulant;
  return s;
}

GraphSchedule GraphSchedule::fixed(const TopologyParams& p, Graph graph) {
  if (graph.n != p.nodes) {  // a generator's bug, not the user's input
    throw std::logic_error("topology \"" + p.kind + "\": the generator returned " +
                           std::to_string(graph.n) + " nodes for " + std::to_string(p.nodes) +
                           " workers");
  }
  GraphSchedule s;
  s.kind_ = p.kind;
  s.n_ = p.nodes;
  s.rule_ = weight_rule(p.weights);
  s.seed_ = p.seed;
  s.directed_ = graph.directed;
  s.static_round_ = std::make_shared<const RoundGraph>(with_weights(std::move(graph), s.rule_));
  return s;
}

GraphSchedule GraphSchedule::varying(const TopologyParams& p, bool directed, std::int64_t period,
                                     std::function<Graph(std::int64_t)> arcs,
                                     std::function<Graph()> united) {
  GraphSchedule s;
  s.kind_ = p.kind;
  s.n_ = p.nodes;
  s.rule_ = weight_rule(p.weights);
  s.seed_ = p.seed;
  s.directed_ = directed;
  s.time_varying_ = true;
  s.period_ = period;
  s.arcs_ = std::move(arcs);
  s.united_ = std::move(united);
  return s;
}

std::shared_ptr<const RoundGraph> GraphSchedule::build_round(std::int64_t t) const {
  return std::make_shared<const RoundGraph>(with_weights(arcs_(t), rule_));
}

std::shared_ptr<const RoundGraph> GraphSchedule::round(std::int64_t t) const {
  if (static_round_) return static_round_;
  const std::int64_t key = period_ > 0 ? t % period_ : t;
  std::lock_guard lock(*cache_mutex_);
  if (auto it = cache_.find(key); it != cache_.end()) return it->second;
  auto built = build_round(key);
  if (cache_.size() >= kCachedRounds) cache_.erase(cache_.begin());
  cache_.emplace(key, built);
  return built;
}

Neighborhood GraphSchedule::neighborhood(int node, std::int64_t t) const {
  const auto r = round(t);
  Neighborhood nb;
  const auto out = r->out.out(node), in = r->in.out(node);
  nb.out.assign(out.begin(), out.end());
  nb.in.assign(in.begin(), in.end());
  nb.self_weight = r->weights.self[node];
  const auto first = r->weights.in.begin() + r->in.offsets[node];
  nb.in_weights.assign(first, first + std::ptrdiff_t(in.size()));
  return nb;
}

Graph GraphSchedule::period_union() const {
  if (static_round_) return static_round_->out;
  return united_();
}

}  // namespace dlsim::topo
