// Running one scenario end to end: everything that can fail on bad input (data files,
// shard sizes) is checked by prepare() before anything is written; run() then builds
// the engine, network and processes, simulates, and writes metrics.csv and
// summary.json into the output folder (docs/design.md §5).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/data/dataset.hpp"
#include "models/data/partition.hpp"
#include "models/objectives/objective.hpp"
#include "sim/engine/rank_group.hpp"
#include "sim/metrics/observer.hpp"
#include "sim/run/data_sharing.hpp"
#include "sim/run/memory_estimate.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// A scenario with its data loaded and checked: ready to run.
struct PreparedRun {
  Scenario scenario;
  std::optional<models::DataSplit> data;
  std::unique_ptr<models::Objective> objective;
  models::Shards shards;
  std::int64_t samples_per_iteration = 0;      // batch · workers
  std::int64_t train_samples = 0;              // 0 without data
  std::optional<std::int64_t> max_iterations;  // from stop.iterations / stop.epochs
  MemoryEstimate memory;                       // the peak memory estimate (memory_estimate.hpp)
};

struct PrepareOptions {
  int threads = 1;                     // --threads: per-thread scratch in the estimate
  bool inline_metrics = false;         // --inline-metrics (metrics_in_background)
  std::optional<double> memory_limit;  // --memory-limit in bytes (memory_guard.hpp)
  int ranks = 1;                       // MPI ranks: the estimate is one rank's
  /// Across ranks: one copy of the data per machine (data_sharing.hpp); null: this
  /// process loads its own. Not owned.
  DataSharing* sharing = nullptr;
};

/// Loads data and builds the objective; throws InputError for anything wrong, and for a
/// run whose memory estimate exceeds the memory available (checked before the data is
/// loaded, before it is stored, before the objective is built, and once it is).
PreparedRun prepare(Scenario scenario, const PrepareOptions& options = {});

/// prepare()'s first memory check, from the scenario alone (nothing loaded: a lower bound
/// of the final estimate); throws InputError when even that does not fit. dlsim sweep
/// checks every point with it before anything runs.
void check_scenario_memory(const Scenario& s, const PrepareOptions& options = {});

struct RunOptions {
  std::filesystem::path out_dir;
  std::string out_where = "output.dir";   // how errors about out_dir name it (`--out`)
  bool progress = false;                  // draw the progress line on stderr
  bool trace = false;                     // write trace.json (sim/trace/chrome_trace_writer.hpp)
  std::uint64_t trace_limit = 1'000'000;  // events in trace.json at most
  int threads = 1;                        // for the math (>= 1; job_pool.hpp)
  bool inline_metrics = false;            // --inline-metrics (metrics_in_background)
  /// Time one math or compression call (and compute job) in this many, counted that many
  /// times; 1 times every call (--profile). Timing only: results never depend on it.
  int wall_sample_every = 16;
  std::vector<std::string> argv;  // the command line, for summary.json "run"
  /// Also told of every row (and its models), after the run's own writers; not owned.
  std::vector<MetricsObserver*> observers;
  /// One simulation across ranks (`mpirun -np K dlsim run`; sim/engine/rank_group.hpp):
  /// every rank calls run() with the same scenario; the workers' math is split among them
  /// and only rank 0 writes. Null: this process alone. Not owned.
  RankGroup* ranks = nullptr;
};

/// Whether the metrics rows are evaluated while the simulation goes on
/// (sim/metrics/recorder.hpp; the same values): with one thread on a thread of their own,
/// with a pool (`threads` > 1) beside its phases, chunk by chunk, on the helpers that have
/// no phase's job to run. In one process (across ranks the evaluation is shared among
/// them), unless the scenario stops at a target loss (each row's loss decides at once) or
/// `inline_metrics`. It does not depend on the machine, so neither does the memory
/// estimate.
bool metrics_in_background(const Scenario& s, int ranks, bool inline_metrics);

/// Simulates and writes the results; returns the content of summary.json.
nlohmann::json run(PreparedRun& prepared, const RunOptions& options);

}  // namespace dlsim::sim
