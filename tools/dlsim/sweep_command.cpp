// dlsim sweep SCENARIO.json [--set K=V]... [--grid K=V1,V2,...]... [--repeat N]
//   [--jobs N] [--out DIR] [--resume] [--shard i/K] [--quiet];  dlsim sweep --merge DIR
// The sweep plan (sim/sweep/sweep_plan.hpp) is built and every point validated
// before anything is written; points run as child processes (sweep_runner.hpp).
// Exit status: 0 when every point of this invocation's share is done, 1 when a run
// failed (the others still ran), 2 on bad input.
#include "tools/dlsim/sweep_command.hpp"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <new>
#include <thread>

#include "sim/metrics/output_lock.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"
#include "sim/sweep/process_pool.hpp"
#include "sim/sweep/sweep_runner.hpp"
#include "tools/dlsim/cli_checks.hpp"
#include "tools/dlsim/error_line.hpp"
#include "tools/dlsim/memory_limit_option.hpp"
#include "tools/dlsim/mpi_point_counter.hpp"
#include "tools/dlsim/mpi_world.hpp"

namespace dlsim::tool {

namespace {

using sim::InputError;

const char* const kDescription =
    "Run a scenario over a grid of values: one run folder per point in DIR/<run id>, and "
    "DIR/runs.csv with every point's status, varied values and final metrics";

int default_jobs(const MpiWorld& world) {
  int cores = int(std::thread::hardware_concurrency());
  if (cores < 1) cores = 1;
  if (world.active()) {  // share this machine's cores among the ranks placed on it
    const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
    const int ranks_here = local ? std::atoi(local) : 1;
    if (ranks_here > 1) cores = std::max(1, cores / ranks_here);
  }
  return cores;
}

std::string counts_text(const sim::SweepCounts& c) {
  std::string text = std::to_string(c.total) + " runs: " + std::to_string(c.done) + " done";
  if (c.skipped > 0) text += " (" + std::to_string(c.skipped) + " already before)";
  text += ", " + std::to_string(c.failed) + " failed";
  if (c.pending > 0) text += ", " + std::to_string(c.pending) + " pending";
  return text;
}

}  // namespace

SweepCommand::SweepCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "sweep", std::string(kDescription) + (MpiWorld::built_with_mpi()
                                                ? " (built with MPI: under mpirun the ranks take "
                                                  "the points one at a time)"
                                                : " (built without MPI)"));
  command_->add_option("scenario", scenario_, "Scenario JSON file (with --merge: the sweep folder)")
      ->required();
  // One value per occurrence, so `--grid K=1,2 SCENARIO.json` keeps the file positional.
  command_->add_option("--set", sets_, "Override a scenario key: KEY=VALUE (before the grid)")
      ->allow_extra_args(false);
  command_
      ->add_option("--grid", grids_,
                   "Sweep a dotted key over values: KEY=V1,V2,... (each value JSON, else a "
                   "string; commas inside JSON brackets or strings do not split); adds to "
                   "the scenario's sweep.grid, replacing the same key")
      ->allow_extra_args(false);
  command_
      ->add_option("--repeat", repeat_,
                   "Runs per grid point, with seeds seed, seed+1, ... (default: sweep.repeat)")
      ->check(integer_at_least(1, INT32_MAX));
  command_->add_option("--jobs", jobs_, "Runs at once (default: the number of cores)")
      ->check(integer_at_least(1, INT32_MAX));
  command_->add_option("--out", out_,
                       "Sweep folder (default: the scenario's output.dir if it sets one, else "
                       "results/<name>-sweep)");
  command_->add_flag("--resume", resume_,
                     "Continue a sweep in an existing folder: finished runs are kept, unfinished "
                     "and failed ones are redone");
  command_->add_option("--shard", shard_,
                       "Run only shard i of K (points i, i+K, ...; for job arrays); writes "
                       "runs.shard-i-of-K.csv and always resumes; combine with --merge");
  command_->add_flag("--merge", merge_,
                     "Rebuild DIR/runs.csv of a sharded sweep from its run folders");
  command_->add_flag("--quiet", quiet_, "No progress line and no closing line");
  add_memory_limit_option(command_, memory_limit_);
}

int SweepCommand::run() {
  return merge_ ? merge() : sweep();
}

int SweepCommand::merge() {
  std::filesystem::path dir = scenario_;
  if (!std::filesystem::is_directory(dir)) {
    if (!out_.empty()) {
      dir = out_;
    } else {
      nlohmann::json doc = sim::read_scenario_file(scenario_);
      for (const auto& s : sets_) sim::apply_override(doc, s);
      dir = sim::default_sweep_dir(doc);
    }
  }
  if (!std::filesystem::exists(dir / "sweep.json"))  // before the lock creates anything
    throw InputError(dir.string(), "not a sweep folder (no sweep.json)");
  const sim::OutputLock lock(dir, dir.string());
  const sim::SweepCounts counts = sim::merge_sweep(dir);
  if (!quiet_)
    std::printf("merged %s: %s -> %s\n", dir.string().c_str(), counts_text(counts).c_str(),
                (dir / "runs.csv").string().c_str());
  return counts.done == counts.total ? 0 : 1;
}

int SweepCommand::sweep() {
  MpiWorld world;
  MpiWorld::hide_launcher_from_children();  // the point runs are single processes
  const bool lead = world.rank() == 0;
  sim::SweepPlan plan;
  sim::SweepOptions options;
  std::vector<std::unique_ptr<sim::OutputLock>> locks;
  bool ok = true;
  std::string error_where, error_what;
  try {
    sim::SweepRequest request;
    request.scenario = sim::read_scenario_file(scenario_);
    for (const auto& s : sets_) sim::apply_override(request.scenario, s);
    for (const auto& g : grids_) request.grid.push_back(sim::parse_grid_option(g));
    if (repeat_ > 0) request.repeats = repeat_;
    if (!out_.empty()) request.out = out_;
    const std::optional<double> limit = parse_memory_limit(memory_limit_);
    plan = sim::plan_sweep(request);
    // Points whose scenario alone exceeds the memory are refused before anything runs.
    for (std::size_t i = 0; i < plan.points.size(); ++i) {
      try {
        sim::check_scenario_memory(sim::load_scenario(plan.points[i].scenario),
                                   {.memory_limit = limit});
      } catch (const InputError& e) {
        throw InputError(e.where(), e.problem() + " (in run " + plan.points[i].run_id + ")");
      }
    }
    if (!memory_limit_.empty()) options.run_args = {"--memory-limit", memory_limit_};

    if (!shard_.empty()) {
      if (world.active())
        throw InputError("--shard", "cannot be combined with mpirun (the ranks share the points)");
      options.part = sim::parse_shard(shard_);
    }
    options.resume = resume_ || !shard_.empty();  // MPI ranks refuse a used DIR like one process
    options.jobs = jobs_ > 0 ? jobs_ : default_jobs(world);
    options.progress = !quiet_ && lead && isatty(STDERR_FILENO);
    options.lead = lead;  // shards: every shard is rank 0 of its own
    options.executable = sim::current_executable();
    sim::check_output_dir(plan, options);
    // One sweep per folder (sim/metrics/output_lock.hpp): shards share it, each holding
    // its own shard; under mpirun rank 0 holds it for all ranks.
    if (lead && (options.part.whole() || world.active())) {
      locks.push_back(std::make_unique<sim::OutputLock>(plan.dir, plan.dir.string()));
    } else if (lead) {
      locks.push_back(std::make_unique<sim::OutputLock>(plan.dir, plan.dir.string(),
                                                        sim::OutputLock::Mode::shared));
      locks.push_back(std::make_unique<sim::OutputLock>(
          plan.dir, plan.dir.string(), sim::OutputLock::Mode::exclusive,
          ".dlsim-shard-" + options.part.tag() + ".lock"));
    }
  } catch (const InputError& e) {
    if (!world.active()) throw;
    ok = false;
    error_where = e.where();
    error_what = e.problem();
  }
  // Under MPI every rank must leave together: agree before anything is written.
  if (!world.all_ok(ok)) {
    const bool rank0_failed = !world.from_rank0(ok);
    if (!ok && (lead || !rank0_failed)) print_error(error_where, error_what);
    return 2;
  }

  // Under MPI the ranks take the points one by one from a counter on rank 0.
  std::unique_ptr<MpiPointCounter> counter;
  if (world.active()) {
    counter = std::make_unique<MpiPointCounter>(world, plan.points.size());
    options.shared = counter.get();
  }
  sim::SweepCounts counts;
  try {
    counts = sim::execute_sweep(plan, options);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dlsim: error: ran out of memory while running the sweep\n");
    world.abort(1);
  } catch (const std::exception& e) {
    print_error(e.what());
    world.abort(1);
  }
  const std::filesystem::path index = sim::index_path(plan.dir, options.part);
  if (!quiet_ && lead)
    std::printf("sweep %s: %s -> %s\n", plan.name.c_str(), counts_text(counts).c_str(),
                index.string().c_str());
  return counts.done == counts.total ? 0 : 1;
}

}  // namespace dlsim::tool
