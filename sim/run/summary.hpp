// summary.json (docs/design.md §5): the resolved scenario, the final metrics row, totals
// (events, traffic, simulated and wall time with its split, peak memory and its estimate),
// the facts of
// the communication graph, the dlsim version, and "complete" (false when SIGINT/SIGTERM
// stopped the run before its stop criterion; the rows so far are then in metrics.csv).
#pragma once

#include <optional>

#include <nlohmann/json.hpp>

#include "sim/metrics/observer.hpp"
#include "sim/network/network.hpp"
#include "sim/run/memory_estimate.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

struct RunTotals {
  std::uint64_t events = 0;
  NetworkCounters counters;
  SimTime sim_time{};
  double wall_s = 0;
  double wall_math_s = 0;
  double wall_compress_s = 0;
  double wall_metrics_s = 0;
  double metrics_thread_s = 0;  // evaluating on the metrics thread (metrics_in_background)
  std::uint64_t peak_rss_bytes = 0;
  MemoryEstimate memory;                    // the estimate of peak_rss_bytes (memory_estimate.hpp)
  std::uint64_t heap_prefaulted_bytes = 0;  // populated in bulk (sim/engine/heap_prefault.hpp)
  int threads = 1;                          // --threads, resolved
  std::uint64_t jobs = 0;                   // compute jobs run (sim/runtime/compute_job.hpp)
  std::uint64_t job_phases = 0;             // instants at which jobs ran (parallel phases)
  double jobs_thread_s = 0;                 // the jobs' own wall time, summed over all threads
  bool complete = true;                     // false when a stop signal ended the run early
  bool reached_clock_end = false;           // the next event lay beyond the clock's end (§6)
};

/// The metrics row as a JSON object keyed by the CSV column names (null when empty).
nlohmann::json row_to_json(const MetricsRow& row);

nlohmann::json make_summary(const Scenario& s, const std::optional<MetricsRow>& final_row,
                            const RunTotals& totals);

}  // namespace dlsim::sim
