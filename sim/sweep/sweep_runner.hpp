// Executing a planned sweep: every point this invocation owns becomes a child
// `dlsim run DIR/<id>/point.json --out DIR/<id> --quiet` (and --inline-metrics when runs
// go side by side), at most `jobs` at a time;
// the index is rewritten atomically after each start and finish (run_index.hpp).
//
// Resume rule: a point is finished iff its folder holds summary.json and
// metrics.csv and the summary is not "complete": false (a run stopped by
// SIGINT/SIGTERM); everything else (failed, interrupted, never started) is redone from an
// emptied folder. Without --resume an existing non-empty DIR is refused, so a new
// sweep never mixes with old results. Shards always resume (their peers write into
// the same DIR, and batch systems retry jobs); MPI ranks, which share the points
// (shared_points.hpp), need --resume like one process.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/sweep/partition.hpp"
#include "sim/sweep/shared_points.hpp"
#include "sim/sweep/sweep_plan.hpp"

namespace dlsim::sim {

struct SweepOptions {
  bool resume = false;
  Partition part;               // this invocation's share of the points
  int jobs = 1;                 // child processes at once
  bool progress = false;        // the progress line on stderr
  bool report_failures = true;  // one stderr line per failed run
  // The lead writes sweep.json; with shared points it also prepares every run folder and
  // keeps runs.csv current. A shard is its own lead.
  bool lead = true;
  // Points shared with other processes (MPI ranks), taken one at a time as children
  // finish, instead of `part`'s fixed stride; `part` is then the whole sweep.
  SharedPoints* shared = nullptr;
  std::filesystem::path executable;   // the dlsim binary to run points with
  std::vector<std::string> run_args;  // added to every point's `dlsim run` (--memory-limit)
};

struct SweepCounts {
  std::size_t total = 0;    // points in this invocation's share (see execute_sweep)
  std::size_t done = 0;     // finished (before or during this invocation)
  std::size_t skipped = 0;  // finished before this invocation (not rerun)
  std::size_t failed = 0;
  std::size_t pending = 0;
};

/// The index file of a share: runs.csv for the whole sweep, else runs.shard-i-of-K.csv.
std::filesystem::path index_path(const std::filesystem::path& dir, const Partition& part);

/// Throws InputError when DIR cannot take this sweep (see above), before anything
/// is written; also when a finished run in DIR was made from a different scenario.
void check_output_dir(const SweepPlan& plan, const SweepOptions& options);

/// Writes sweep.json and the run folders of the owned points, runs them, and keeps
/// the share's index current. With shared points, returns once every process has
/// finished; the counts are then the whole sweep's on the lead and the points this
/// process took elsewhere.
SweepCounts execute_sweep(const SweepPlan& plan, const SweepOptions& options);

/// Rebuilds DIR/runs.csv of a whole sweep from sweep.json and the run folders (the
/// truth that every shard index reflects); for `--merge`.
SweepCounts merge_sweep(const std::filesystem::path& dir);

}  // namespace dlsim::sim
