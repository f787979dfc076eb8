#include "sim/run/summary.hpp"

#include <algorithm>

#include "sim/algorithms/algorithms.hpp"
#include "topologies/graph.hpp"

namespace dlsim::sim {

namespace {

nlohmann::json optional_json(const std::optional<double>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json(nullptr);
}

nlohmann::json topology_facts(const Scenario& s) {
  nlohmann::json t;
  if (!s.decentralized()) {
    t["kind"] = s.algorithm.collective;
    t["nodes"] = node_count(s);
    return t;
  }
  const topo::Graph g = communication_graph(s);
  int dmin = g.degree(0), dmax = g.degree(0);
  for (int i = 0; i < g.nodes(); ++i) {
    dmin = std::min(dmin, g.degree(i));
    dmax = std::max(dmax, g.degree(i));
  }
  t["kind"] = s.topology.kind;
  t["nodes"] = g.nodes();
  t["edges"] = g.edges();
  t["directed"] = false;
  t["time_varying"] = false;
  t["degree_min"] = dmin;
  t["degree_max"] = dmax;
  t["weights"] = s.topology.weights;
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
