#include "sim/run/summary.hpp"

#include <algorithm>

#include "sim/algorithms/algorithms.hpp"
#include "sim/scenario/topology_build.hpp"
#include "topologies/facts.hpp"

namespace dlsim::sim {

namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

// Decentralized runs: the facts `dlsim topology --json` prints, plus the kind.
// Centralized runs have no gossip graph: the collective and the node count only.
nlohmann::json topology_facts(const Scenario& s) {
  if (!s.decentralized()) {
    return {{"kind", s.algorithm.collective}, {"nodes", node_count(s)}};
  }
  nlohmann::json t = topology_facts_json(topo::describe(communication_graph(s)));
  t["kind"] = s.topology.kind;
  return t;
}

}  // namespace

nlohmann::json row_to_json(const MetricsRow& r) {
  return {{"time_s", r.time_s},
          {"iteration", r.iteration},
          {"epoch", optional_json(r.epoch)},
          {"bits_total", r.bits_total},
          {"bytes_wire", r.bytes_wire},
          {"messages", r.messages},
          {"train_loss", optional_json(r.train_loss)},
          {"test_loss", optional_json(r.test_loss)},
          {"test_accuracy", optional_json(r.test_accuracy)},
          {"consensus_distance", optional_json(r.consensus_distance)},
          {"wall_s", r.wall_s}};
}

nlohmann::json make_summary(const Scenario& s, const std::optional<MetricsRow>& final_row,
                            const RunTotals& t) {
  const double engine_s =
      std::max(0.0, t.wall_s - t.wall_math_s - t.wall_compress_s - t.wall_metrics_s);
  nlohmann::json totals = {{"events", t.events},
                           {"events_per_second", t.wall_s > 0 ? double(t.events) / t.wall_s : 0.0},
                           {"messages", t.counters.messages},
                           {"bits_total", t.counters.bits_total},
                           {"bytes_wire", t.counters.bytes_wire},
                           {"sim_time_s", t.sim_time.seconds()},
                           {"wall_s", t.wall_s},
                           {"wall_math_s", t.wall_math_s},
                           {"wall_compress_s", t.wall_compress_s},
                           {"wall_metrics_s", t.wall_metrics_s},
                           {"wall_engine_s", engine_s},
                           {"peak_rss_bytes", t.peak_rss_bytes}};
  return {{"scenario", s.resolved},
          {"final", final_row ? row_to_json(*final_row) : nlohmann::json(nullptr)},
          {"totals", totals},
          {"topology", topology_facts(s)},
          {"version", DLSIM_VERSION}};
}

}  // namespace dlsim::sim
