#include "sim/sweep/sweep_runner.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <thread>

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
  SharedPoints* const shared = options.shared;
  // The points this process prepares and lists in its index: its shard's, or with shared
  // points every point on the lead and none elsewhere.
  const bool keeps_index = shared == nullptr || options.lead;
  const std::vector<std::size_t> rows =
      keeps_index ? owned_points(shared ? Partition{} : options.part, plan.points.size())
                  : std::vector<std::size_t>{};
  if (options.lead) {
    fs::create_directories(plan.dir);
    write_file_atomically(plan.dir / "sweep.json", plan_to_json(plan).dump(2) + "\n");
  }

  std::vector<RunRecord> records(plan.points.size());
  std::vector<std::size_t> todo;
  for (std::size_t i : rows) {
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
  const std::size_t done_before = count(records, rows).done;

  // With shared points the lead learns about the other processes' runs from their
  // folders (fresh ones, prepared below): the points handed out so far are running,
  // done or failed.
  const auto refresh_from_folders = [&] {
    if (shared == nullptr || !options.lead) return;
    const std::size_t taken = std::min(shared->taken(), plan.points.size());
    for (std::size_t i = 0; i < taken; ++i) {
      if (records[i].status == RunStatus::done) continue;
      records[i] = read_run_record(plan.run_dir(plan.points[i]));
      if (records[i].status == RunStatus::pending) records[i].status = RunStatus::running;
    }
  };

  const fs::path index = index_path(plan.dir, options.part);
  // Small sweeps rewrite the index on every start and finish; large ones (where each
  // rewrite costs O(points)) at most once a second, and always at the end. Either way
  // the file is complete; only a status may lag, and resume trusts the folders.
  const bool throttle = rows.size() > kUnthrottledIndexRows;
  auto last_write = std::chrono::steady_clock::now();
  // Finishes are written durably (fsync); a start only marks a run "running".
  const auto write_index = [&](bool force, bool durable = true) {
    if (!keeps_index) return;
    const auto now = std::chrono::steady_clock::now();
    if (!force && throttle && now - last_write < std::chrono::seconds(1)) return;
    refresh_from_folders();
    write_file_atomically(index, index_csv(plan, records, rows), durable);
    last_write = now;
  };
  // Fresh folders for everything that runs: a stale partial result never survives.
  for (std::size_t i : todo) {
    const fs::path run = plan.run_dir(plan.points[i]);
    fs::remove_all(run);
    fs::create_directories(run);
    // Not fsynced: until the run's own results exist, the point is redone anyway.
    write_file_atomically(run / "point.json", plan.points[i].scenario.dump(2) + "\n", false);
  }
  write_index(true);
  if (shared) shared->wait_for_lead();

  // What this process runs: its todo list, or the points it takes from the shared ones
  // (skipping those finished before).
  SweepCounts mine;
  if (shared == nullptr) {
    mine = count(records, rows);
    mine.skipped = mine.done;
  }
  std::vector<std::size_t> started;  // point indexes, in start order
  std::size_t next_todo = 0;
  const std::string exe = options.executable.string();
  const NextCommand next = [&]() -> std::optional<ChildCommand> {
    std::size_t i = 0;
    while (true) {
      if (shared == nullptr) {
        if (next_todo == todo.size()) return std::nullopt;
        i = todo[next_todo++];
        break;
      }
      const std::optional<std::size_t> got = shared->take();
      if (!got || *got >= plan.points.size()) return std::nullopt;
      i = *got;
      ++mine.total;
      if (!run_finished(plan.run_dir(plan.points[i]))) break;
      ++mine.done;
      ++mine.skipped;
    }
    started.push_back(i);
    const fs::path run = plan.run_dir(plan.points[i]);
    std::vector<std::string> args = {exe,     "run",        (run / "point.json").string(),
                                     "--out", run.string(), "--quiet"};
    args.insert(args.end(), options.run_args.begin(), options.run_args.end());
    // Runs side by side already keep the cores busy: no metrics thread of their own each.
    if (options.jobs > 1 || shared != nullptr) args.emplace_back("--inline-metrics");
    return ChildCommand{std::move(args), run / "run.log"};
  };

  SweepProgress progress(stderr, options.progress);
  std::size_t running = 0, finished_here = 0;
  const auto redraw = [&] {
    if (shared == nullptr) {
      progress.draw(mine.done, mine.failed, running, mine.total, finished_here,
                    todo.size() - finished_here);
      return;
    }
    // The lead of shared points shows the whole sweep.
    const SweepCounts all = count(records, rows);
    std::size_t busy = 0;
    for (std::size_t i : rows) busy += records[i].status == RunStatus::running ? 1 : 0;
    progress.draw(all.done, all.failed, busy, all.total, all.done + all.failed - done_before,
                  all.total - all.done - all.failed);
  };
  PoolCallbacks callbacks;
  callbacks.on_start = [&](std::size_t k) {
    records[started[k]].status = RunStatus::running;
    ++running;
    if (shared == nullptr) --mine.pending;
    write_index(false, /*durable=*/false);
    redraw();
  };
  callbacks.on_finish = [&](std::size_t k, const ChildOutcome& outcome) {
    const SweepPoint& p = plan.points[started[k]];
    const fs::path run = plan.run_dir(p);
    --running;
    ++finished_here;
    const std::string log = read_text(run / "run.log");
    if (outcome.ok && run_finished(run)) {
      records[started[k]] = read_run_record(run);
      ++mine.done;
    } else {
      records[started[k]] = RunRecord{RunStatus::failed, nullptr};
      ++mine.failed;
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
  callbacks.on_tick = [&] {
    if (shared) {
      shared->serve();
      write_index(false, /*durable=*/false);
    }
    redraw();
  };
  run_children(next, options.jobs, callbacks);

  if (shared) {
    // Keep the index current until every process has run all it took.
    while (!shared->all_finished()) {
      callbacks.on_tick();
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
  write_index(true);
  progress.clear();
  if (shared && options.lead) {
    SweepCounts all = count(records, rows);
    all.skipped = done_before;
    return all;
  }
  return mine;
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
