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
  nlohmann::json t = topology_facts_json(topo::describe(*communication_graph(s)));
  t["kind"] = s.topology.kind;
  return t;
}

// Gossip bookkeeping in model-sized vectors (docs/algorithms.md §3), recounted here from
// the graph schedule for the rounds run, in the layout the algorithm declares
// (GossipMemory, sim/scenario/algorithm_registry.hpp):
//  - public copies (CHOCO family): x̂_i and s_i on a static graph; on a time-varying one
//    a pair per neighbour ever met (choco_time_varying.cpp).
//  - push-sum (compressed_push_sum.hpp): one copy per outgoing stream (one on a static
//    graph, one per out-neighbour ever sent to on a time-varying one) plus one per
//    in-neighbour ever received from (round k's messages are received in round k + 1).
nlohmann::json gossip_memory(const Scenario& s, const GossipMemory& memory, std::int64_t rounds) {
  const auto shared = communication_graph(s);  // held: another thread may replace the entry
  const topo::GraphSchedule& graph = *shared;
  const bool push_sum = memory.layout == GossipMemory::Layout::push_sum;
  const std::int64_t per_copy = memory.vectors_per_copy;
  const auto count = [](const std::vector<bool>& met) {
    return std::int64_t(std::count(met.begin(), met.end(), true));
  };
  std::int64_t total = 0, most = 0;
  for (int i = 0; i < graph.nodes(); ++i) {
    std::vector<bool> sent_to(std::size_t(graph.nodes()), false);
    std::vector<bool> heard_from(std::size_t(graph.nodes()), false);
    // a static graph's neighbourhoods are all round 0's
    const std::int64_t distinct = graph.time_varying() ? rounds : std::min<std::int64_t>(rounds, 2);
    for (std::int64_t k = 0; k < distinct; ++k) {
      const topo::Neighborhood nb = graph.neighborhood(i, k);
      for (int j : nb.out) sent_to[std::size_t(j)] = true;
      if (k + 1 < rounds)
        for (int j : nb.in) heard_from[std::size_t(j)] = true;
    }
    std::int64_t copies = 1;  // CHOCO's static x̂_i, s_i pair
    if (push_sum)
      copies = (graph.time_varying() ? count(sent_to) : 1) + count(heard_from);
    else if (graph.time_varying())
      copies = count(sent_to);
    const std::int64_t vectors = per_copy * copies;
    total += vectors;
    most = std::max(most, vectors);
  }
  return {{"vectors_total", total}, {"vectors_per_node_max", most}};
}

// The estimate's pieces by name ("model state" -> "model_state"), in bytes.
nlohmann::json estimate_parts(const MemoryEstimate& e) {
  nlohmann::json parts = nlohmann::json::object();
  for (const MemoryPiece& p : e.pieces) {
    std::string key = p.name;
    std::replace(key.begin(), key.end(), ' ', '_');
    parts[key] = p.bytes;
  }
  return parts;
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
                           {"metrics_thread_s", t.metrics_thread_s},
                           {"wall_engine_s", engine_s},
                           {"peak_rss_bytes", t.peak_rss_bytes},
                           {"peak_rss_estimate_bytes", t.memory.bytes},
                           {"peak_rss_estimate_parts", estimate_parts(t.memory)},
                           {"heap_prefaulted_bytes", t.heap_prefaulted_bytes},
                           {"threads", t.threads},
                           {"jobs", t.jobs},
                           {"job_phases", t.job_phases},
                           {"jobs_thread_s", t.jobs_thread_s}};
  nlohmann::json summary = {
      {"scenario", s.resolved},
      {"final", final_row ? row_to_json(*final_row) : nlohmann::json(nullptr)},
      {"totals", totals},
      {"topology", topology_facts(s)},
      {"version", DLSIM_VERSION},
      {"complete", t.complete}};
  if (t.reached_clock_end) summary["reached_clock_end"] = true;
  const GossipMemory& memory = s.algorithm.facts().gossip_memory;
  if (memory.layout != GossipMemory::Layout::none)
    summary["gossip_memory"] = gossip_memory(s, memory, final_row ? final_row->iteration : 0);
  return summary;
}

}  // namespace dlsim::sim
