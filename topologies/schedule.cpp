#include "topologies/schedule.hpp"

#include <numeric>

#include "topologies/analysis.hpp"
#include "topologies/edge_list.hpp"
#include "topologies/generators.hpp"
#include "topologies/random_graphs.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {

namespace {

constexpr std::size_t kCachedRounds = 16;

int ceil_log2(int n) {
  int tau = 0;
  while ((std::int64_t(1) << tau) < n) ++tau;
  return tau;
}

void require_dims_product(const TopologyParams& p) {
  std::int64_t product = 1;
  for (std::int64_t d : p.dims) {
    if (d < 1) throw TopologyError("dims", "every dimension must be >= 1");
    product = product > p.nodes ? product : product * d;
  }
  if (p.dims.empty() || product != p.nodes) {
    throw TopologyError("dims",
                        "product of dims must equal workers (" + std::to_string(p.nodes) + ")");
  }
}

Graph static_graph(const TopologyParams& p) {
  const int n = p.nodes;
  const std::string& kind = p.kind;
  if (kind == "complete") return complete_graph(n);
  if (kind == "star") return star_graph(n);
  if (kind == "ring") return ring_graph(n);
  if (kind == "torus" || kind == "grid") {
    require_dims_product(p);
    return kind == "torus" ? torus_graph(p.dims) : grid_graph(p.dims);
  }
  if (kind == "hypercube") return hypercube_graph(n);
  if (kind == "exponential") return exponential_graph(n);
  if (kind == "random-regular") return random_regular_graph(n, p.degree, p.seed);
  if (kind == "erdos-renyi") return erdos_renyi_graph(n, p.p, p.seed);
  if (kind == "small-world") return small_world_graph(n, p.k, p.p, p.seed);
  if (kind == "edge-list") {
    Graph g = read_edge_list(p.path, n);
    if (!is_connected(g)) {
      throw TopologyError("path", p.path + ": the graph is not connected (gossip could never " +
                                      "reach every node); node ids are 0.." +
                                      std::to_string(n - 1));
    }
    return g;
  }
  if (kind == "directed-ring") return directed_ring_graph(n);
  if (kind == "directed-exponential") return directed_exponential_graph(n);
  throw TopologyError("kind", "unknown topology kind \"" + kind + "\"");
}

}  // namespace

const std::vector<std::string>& topology_kinds() {
  static const std::vector<std::string> kinds = {
      "complete",        "star",           "ring",
      "torus",           "grid",           "hypercube",
      "exponential",     "random-regular", "erdos-renyi",
      "small-world",     "edge-list",      "one-peer-exponential",
      "random-matching", "directed-ring",  "directed-exponential"};
  return kinds;
}

RoundGraph with_weights(Graph out, WeightRule rule) {
  RoundGraph r;
  r.in = transpose(out);
  r.out = std::move(out);
  r.weights = mixing_weights(r.out, r.in, rule);
  return r;
}

GraphSchedule GraphSchedule::make(const TopologyParams& p) {
  GraphSchedule s;
  s.kind_ = p.kind;
  s.n_ = p.nodes;
  s.rule_ = weight_rule(p.weights);
  s.seed_ = p.seed;
  const std::string& kind = p.kind;
  s.vertex_transitive_ = kind == "complete" || kind == "ring" || kind == "torus" ||
                         kind == "hypercube" || kind == "exponential" || kind == "directed-ring" ||
                         kind == "directed-exponential" || kind == "one-peer-exponential";
  s.circulant_ = kind == "complete" || kind == "ring" || kind == "exponential" ||
                 kind == "directed-ring" || kind == "directed-exponential" ||
                 kind == "one-peer-exponential";
  if (kind == "one-peer-exponential") {
    if (p.nodes < 2) throw TopologyError("workers", "one-peer-exponential needs at least 2 nodes");
    s.directed_ = true;
    s.time_varying_ = true;
    s.period_ = ceil_log2(p.nodes);
    return s;
  }
  if (kind == "random-matching") {
    random_matching_graph(p.nodes, p.seed, 0);  // validates n
    s.time_varying_ = true;
    s.period_ = 0;
    return s;
  }
  Graph g = static_graph(p);
  s.directed_ = g.directed;
  s.static_round_ = std::make_shared<const RoundGraph>(with_weights(std::move(g), s.rule_));
  return s;
}

std::shared_ptr<const RoundGraph> GraphSchedule::build_round(std::int64_t t) const {
  if (kind_ == "one-peer-exponential") {
    const int shift = int((std::int64_t(1) << (t % period_)) % n_);
    return std::make_shared<const RoundGraph>(
        with_weights(circulant_graph(n_, {shift}, true), rule_));
  }
  return std::make_shared<const RoundGraph>(
      with_weights(random_matching_graph(n_, seed_, t), rule_));
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
  if (kind_ == "random-matching") return complete_graph(n_);
  std::vector<int> shifts;
  for (std::int64_t t = 0; t < period_; ++t) shifts.push_back(int((std::int64_t(1) << t) % n_));
  return circulant_graph(n_, shifts, true);
}

}  // namespace dlsim::topo
