#include "sim/sweep/sweep_runner.hpp"

#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/metrics/atomic_file.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/sweep/process_pool.hpp"
#include "sim/sweep/run_index.hpp"
#include "sim/sweep/sweep_progress.hpp"

namespace dlsim::sim {

namespace {

namespace fs = std::filesystem;

constexpr std::size_t kUnthrottledIndexRows = 2000;

nlohmann::json without_output_dir(nlohmann::json doc) {
  if (doc.is_object() && doc.contains("output") && doc["output"].is_object())
    doc["output"].erase("dir");
  return doc;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The last non-empty line of a child's log: usually `dlsim: error: ...`.
std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string line, last;
  while (std::getline(lines, line))
    if (!line.empty()) last = line;
  return last;
}

SweepCounts count(const std::vector<RunRecord>& records, const std::vector<std::size_t>& rows) {
  SweepCounts c;
  c.total = rows.size();
  for (std::size_t i : rows) {
    if (records[i].status == RunStatus::done) ++c.done;
    if (records[i].status == RunStatus::failed) ++c.failed;
    if (records[i].status == RunStatus::pending) ++c.pending;
  }
  return c;
}

}  // namespace

fs::path index_path(const fs::path& dir, const Partition& part) {
  return part.whole() ? dir / "runs.csv" : dir / ("runs.shard-" + part.tag() + ".csv");
}

void check_output_dir(const SweepPlan& plan, const SweepOptions& options) {
  const fs::path& dir = plan.dir;
  std::error_code ec;
  if (!fs::exists(dir, ec)) return;
  if (!fs::is_directory(dir, ec)) throw InputError(dir.string(), "exists and is not a folder");
  // Lock files (output_lock.hpp) do not count: under mpirun rank 0 may already hold the
  // folder's lock while another rank checks it.
  const auto holds_results = [&] {
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (!(name.starts_with(".dlsim") && name.ends_with(".lock"))) return true;
    }
    return false;
  };
  if (!options.resume && holds_results()) {
    if (fs::exists(dir / "sweep.json"))
      throw InputError(dir.string(),
                       "already holds a sweep; add --resume to continue it (finished runs are "
                       "kept), or choose another --out");
    throw InputError(dir.string(), "is not empty; choose another --out");
  }
  for (std::size_t i : owned_points(options.part, plan.points.size())) {
    const SweepPoint& p = plan.points[i];
    const fs::path run = plan.run_dir(p);
    if (!run_finished(run) || !fs::exists(run / "point.json")) continue;
    const nlohmann::json old = nlohmann::json::parse(read_text(run / "point.json"), nullptr, false);
    if (old.is_discarded() || without_output_dir(old) != without_output_dir(p.scenario))
      throw InputError(run.string(),
                       "holds a finished run of a different scenario than this sweep's point " +
                           p.run_id + " (the scenario or --set changed?); choose another --out");
  }
}

SweepCounts execute_sweep(const SweepPlan& plan, const SweepOptions& options) {
  fs::create_directories(plan.dir);
  if (options.write_sweep_json)
    write_file_atomically(plan.dir / "sweep.json", plan_to_json(plan).dump(2) + "\n");

  const std::vector<std::size_t> mine = owned_points(options.part, plan.points.size());
  std::vector<RunRecord> records(plan.points.size());
  std::vector<std::size_t> todo;
  for (std::size_t i : mine) {
    records[i] = read_run_record(plan.run_dir(plan.points[i]));
    if (records[i].status == RunStatus::done) {
      // A run that is finished now is not failed, whatever an earlier sweep noted.
      std::error_code ec;
      fs::remove(plan.run_dir(plan.points[i]) / "failed.json", ec);
      continue;
    }
    records[i] = RunRecord{};
    todo.push_back(i);
  }
  SweepCounts counts = count(records, mine);
  counts.skipped = counts.done;

  const fs::path index = index_path(plan.dir, options.part);
  // Small sweeps rewrite the index on every start and finish; large ones (where each
  // rewrite costs O(points)) at most once a second, and always at the end. Either way
  // the file is complete; only a status may lag, and resume trusts the folders.
  const bool throttle = mine.size() > kUnthrottledIndexRows;
  auto last_write = std::chrono::steady_clock::now();
  // Finishes are written durably (fsync); a start only marks a run "running".
  const auto write_index = [&](bool force, bool durable = true) {
    const auto now = std::chrono::steady_clock::now();
    if (!force && throttle && now - last_write < std::chrono::seconds(1)) return;
    write_file_atomically(index, index_csv(plan, records, mine), durable);
    last_write = now;
  };

  // Fresh folders for everything that runs: a stale partial result never survives.
  std::vector<ChildCommand> commands;
  const std::string exe = options.executable.string();
  for (std::size_t i : todo) {
    const fs::path run = plan.run_dir(plan.points[i]);
    fs::remove_all(run);
    fs::create_directories(run);
    // Not fsynced: until the run's own results exist, the point is redone anyway.
    write_file_atomically(run / "point.json", plan.points[i].scenario.dump(2) + "\n", false);
    std::vector<std::string> args = {exe,     "run",        (run / "point.json").string(),
                                     "--out", run.string(), "--quiet"};
    args.insert(args.end(), options.run_args.begin(), options.run_args.end());
    commands.push_back({std::move(args), run / "run.log"});
  }
  write_index(true);
  if (commands.empty()) return counts;

  SweepProgress progress(stderr, options.progress);
  std::size_t running = 0, finished_here = 0;
  const auto redraw = [&] {
    progress.draw(counts.done, counts.failed, running, counts.total, finished_here,
                  todo.size() - finished_here);
  };
  PoolCallbacks callbacks;
  callbacks.on_start = [&](std::size_t k) {
    records[todo[k]].status = RunStatus::running;
    ++running;
    --counts.pending;
    write_index(false, /*durable=*/false);
    redraw();
  };
  callbacks.on_finish = [&](std::size_t k, const ChildOutcome& outcome) {
    const SweepPoint& p = plan.points[todo[k]];
    const fs::path run = plan.run_dir(p);
    --running;
    ++finished_here;
    const std::string log = read_text(run / "run.log");
    if (outcome.ok && run_finished(run)) {
      records[todo[k]] = read_run_record(run);
      ++counts.done;
    } else {
      records[todo[k]] = RunRecord{RunStatus::failed, nullptr};
      ++counts.failed;
      const nlohmann::json failure{{"run_id", p.run_id},
                                   {"outcome", outcome.what()},
                                   {"exit_code", outcome.exit_code},
                                   {"signal", outcome.signal},
                                   {"message", last_line(log)}};
      write_file_atomically(run / "failed.json", failure.dump(2) + "\n");
      if (options.report_failures) {
        progress.clear();
        std::fprintf(stderr, "dlsim: sweep: run %s failed (%s): %s\n", p.run_id.c_str(),
                     outcome.what().c_str(), last_line(log).c_str());
      }
    }
    if (log.empty()) fs::remove(run / "run.log");
    write_index(false);
    redraw();
  };
  callbacks.on_tick = redraw;
  run_children(commands, options.jobs, callbacks);
  write_index(true);
  progress.clear();
  return counts;
}

SweepCounts merge_sweep(const fs::path& dir) {
  const SweepPlan plan = read_plan(dir);
  std::vector<RunRecord> records;
  std::vector<std::size_t> all;
  for (std::size_t i = 0; i < plan.points.size(); ++i) {
    records.push_back(read_run_record(plan.run_dir(plan.points[i])));
    all.push_back(i);
  }
  write_file_atomically(dir / "runs.csv", index_csv(plan, records, all));
  return count(records, all);
}

}  // namespace dlsim::sim
