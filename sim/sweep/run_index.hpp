// The sweep index DIR/runs.csv (docs/design.md §5): one row per point, in sweep order:
//   run_id,status,<one column per axis key>,repeat,seed,<the metrics.csv columns>
// with the final metrics row of finished runs. Status is
//   done     the run folder holds summary.json and metrics.csv (both written last,
//            atomically, by `dlsim run`) and the summary is not "complete": false
//            (an interrupted run): the resume truth, whatever the index says;
//   failed   the run ended with an error (DIR/<id>/failed.json says how);
//   running  being simulated right now by this invocation;
//   pending  not run yet, or interrupted (its folder is redone by --resume).
// Axis values are written as strings as they are, everything else as compact JSON.
// The file is rewritten atomically after every run start and finish (at most once a
// second for sweeps of more than 2000 points), so it is never torn and never holds a
// point twice. Shards write runs.shard-<i>-of-<K>.csv with their own points.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/sweep_plan.hpp"

namespace dlsim::sim {

enum class RunStatus { pending, running, done, failed };

std::string_view status_name(RunStatus status);

struct RunRecord {
  RunStatus status = RunStatus::pending;
  nlohmann::json final;  // summary.json "final" when done, else null
};

/// True when the folder holds a complete run (summary.json and metrics.csv, and the
/// summary not marked "complete": false by an interrupted run).
bool run_finished(const std::filesystem::path& run_dir);

/// What the folder says: done (with its final row), failed, or pending.
RunRecord read_run_record(const std::filesystem::path& run_dir);

/// The index CSV for the points `rows` (indexes into plan.points) of `plan`.
std::string index_csv(const SweepPlan& plan, const std::vector<RunRecord>& records,
                      const std::vector<std::size_t>& rows);

/// One CSV field, quoted when it holds a comma, a quote or a line break.
std::string csv_field(std::string_view text);

}  // namespace dlsim::sim
