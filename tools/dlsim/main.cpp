// The dlsim command line (docs/design.md §3): run, validate, schema [--markdown], and
// sweep and topology (sweep_command.hpp, topology_command.hpp).
// Exit status: 0 on success; 2 on bad input, with one line `dlsim: error: <where>: <what>`
// on stderr and nothing written; 1 on any other failure, and from a sweep with runs that
// did not finish; 128 + the signal for a run stopped by SIGINT or SIGTERM (its outputs
// are kept, with "complete": false).
// Running out of memory (std::bad_alloc) is one line too: exit 2 when it happens before
// anything is written (loading the data, building the model or a topology: the input asks
// for more than there is), exit 1 once a run has started writing its outputs. A data file
// truncated under its mapping is one line and exit 1 as well (models/data/mapped_file_fault.hpp).
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <iostream>
#include <new>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "models/data/mapped_file_fault.hpp"
#include "sim/metrics/output_lock.hpp"
#include "sim/run/memory_guard.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/spec.hpp"
#include "tools/dlsim/cli_checks.hpp"
#include "tools/dlsim/error_line.hpp"
#include "tools/dlsim/memory_limit_option.hpp"
#include "tools/dlsim/mpi_data_sharing.hpp"
#include "tools/dlsim/mpi_rank_group.hpp"
#include "tools/dlsim/mpi_world.hpp"
#include "tools/dlsim/run_performance.hpp"
#include "tools/dlsim/signals.hpp"
#include "tools/dlsim/sweep_command.hpp"
#include "tools/dlsim/topology_command.hpp"

namespace {

using dlsim::sim::InputError;

int input_error(const std::string& where, const std::string& what) {
  dlsim::tool::print_error(where, what);
  return 2;
}

dlsim::sim::Scenario load(const std::string& file, const std::vector<std::string>& sets) {
  nlohmann::json doc = dlsim::sim::read_scenario_file(file);
  for (const auto& s : sets) dlsim::sim::apply_override(doc, s);
  return dlsim::sim::load_scenario(doc);
}

std::string format_bits(double bits) {
  const char* units[] = {"b", "Kb", "Mb", "Gb", "Tb", "Pb"};
  int u = 0;
  while (bits >= 1000 && u < 5) bits /= 1000, ++u;
  return fmt::format("{:.3g} {}", bits, units[u]);
}

// prepare(), with running out of memory on the way reported as bad input: nothing has
// been written yet, and the scenario asked for more than the estimate foresaw.
dlsim::sim::PreparedRun prepare_or_refuse(dlsim::sim::Scenario scenario,
                                          const dlsim::sim::PrepareOptions& options) {
  try {
    return dlsim::sim::prepare(std::move(scenario), options);
  } catch (const std::bad_alloc&) {
    throw InputError("memory",
                     "ran out of memory while loading the data and building the model, below "
                     "the limit the estimate was checked against; nothing was written");
  }
}

int cmd_run(const std::string& file, const std::vector<std::string>& sets, const std::string& out,
            bool out_given, bool quiet, bool trace, std::int64_t trace_limit,
            const std::string& threads, bool inline_metrics, bool profile,
            const std::string& memory_limit, bool data_per_rank, std::vector<std::string> argv) {
  // Under mpirun with K > 1 ranks: one simulation spread over them (runner.hpp).
  dlsim::tool::MpiWorld world;
  std::optional<dlsim::tool::MpiRankGroup> ranks;
  if (world.active() && world.size() > 1) ranks.emplace(world);
  // Across ranks, one copy of the data set per machine (mpi_data_sharing.hpp); its
  // communicator is freed, collectively, when cmd_run returns on every rank.
  std::optional<dlsim::tool::MpiDataSharing> sharing;
  if (ranks && !data_per_rank) sharing.emplace(world);
  // Alone, SIGINT/SIGTERM end the run after the current iteration with its results kept;
  // across ranks they keep their default action (the ranks cannot agree on an iteration),
  // and mpirun, which forwards them, ends every rank.
  if (!ranks) dlsim::tool::install_stop_signal_handlers();
  const bool lead = world.rank() == 0;

  dlsim::sim::RunOptions options;
  std::optional<dlsim::sim::PreparedRun> prepared;
  const int thread_count = dlsim::tool::parse_threads(threads);
  dlsim::sim::PrepareOptions prepare_options;
  std::optional<dlsim::sim::Scenario> scenario;
  auto read_input = [&] {
    prepare_options = {.threads = thread_count,
                       .inline_metrics = inline_metrics,
                       .memory_limit = dlsim::tool::parse_memory_limit(memory_limit),
                       .ranks = ranks ? ranks->size() : 1,
                       .sharing = sharing ? &*sharing : nullptr};
    scenario = load(file, sets);
    options.out_dir = out_given ? out : scenario->output_dir;
    options.out_where = out_given ? "--out" : "output.dir";
    dlsim::sim::check_output_folder_name(options.out_dir, options.out_where);
  };
  auto prepare_run = [&] {
    prepared.emplace(prepare_or_refuse(std::move(*scenario), prepare_options));
  };
  if (!ranks) {
    read_input();
    prepare_run();
  } else {
    // Every rank reads and checks the scenario, and the ranks agree that it is good before
    // any of them meets the others of its machine to share the data (a rank that left
    // early would leave them waiting). The data files are read by one rank per machine
    // (every rank with --data-per-rank): a file may be missing on one machine only. Each
    // time the lowest rank that failed says why, once, and every rank exits 2.
    const auto refused = [&](const auto& step) {
      std::optional<InputError> failed;
      try {
        step();
      } catch (const InputError& e) {
        failed = e;
      }
      const int first = world.lowest_rank_with(failed.has_value());
      if (first < world.size() && world.rank() == first)
        dlsim::tool::print_error(failed->where(), failed->problem());
      return first < world.size();
    };
    if (refused(read_input) || refused(prepare_run)) return 2;
    options.ranks = &*ranks;
  }
  options.progress = !quiet && lead && isatty(STDERR_FILENO);
  options.trace = trace;
  options.trace_limit = trace_limit;
  options.threads = thread_count;
  options.inline_metrics = inline_metrics;
  options.wall_sample_every = profile ? 1 : 16;
  options.argv = std::move(argv);
  nlohmann::json summary;
  try {
    summary = dlsim::sim::run(*prepared, options);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr,
                 "dlsim: error: ran out of memory during the run (estimated peak %s); the "
                 "rows written so far are in %s\n",
                 dlsim::sim::format_bytes(prepared->memory.bytes).c_str(),
                 options.out_dir.string().c_str());
    if (ranks) world.abort(1);
    return 1;
  } catch (const InputError& e) {
    if (!ranks) throw;
    // Across ranks every rank meets the same bad input (rank 0's output folder is
    // agreed on, a job's error reaches every rank): rank 0 says it.
    if (lead) dlsim::tool::print_error(e.where(), e.problem());
    return 2;
  } catch (const std::exception& e) {
    if (!ranks) throw;
    dlsim::tool::print_error(e.what());  // this rank alone: end them all
    world.abort(1);
  }
  if (!lead) return summary["complete"].get<bool>() ? 0 : dlsim::tool::interrupted_exit_code();
  if (profile) dlsim::tool::print_profile(stderr, summary);
  if (summary.contains("reached_clock_end"))
    std::fprintf(stderr,
                 "dlsim: warning: the simulated clock reached its end (2^63 - 1 ps, about 106.75 "
                 "days) after iteration %lld; the run stops there\n",
                 static_cast<long long>(summary["final"]["iteration"].get<std::int64_t>()));
  if (!quiet) {
    const auto& f = summary["final"];
    std::string line =
        fmt::format("{}: {} iterations, {:.6g} s simulated, {} sent", prepared->scenario.name,
                    f["iteration"].get<std::int64_t>(), f["time_s"].get<double>(),
                    format_bits(f["bits_total"].get<double>()));
    if (!f["train_loss"].is_null())
      line += fmt::format(", train_loss {:.6g}", f["train_loss"].get<double>());
    line += fmt::format(" -> {}", options.out_dir.string());
    if (!summary["complete"].get<bool>()) line += " (interrupted)";
    std::printf("%s\n", line.c_str());
  }
  return summary["complete"].get<bool>() ? 0 : dlsim::tool::interrupted_exit_code();
}

}  // namespace

int main(int argc, char** argv) {
  dlsim::models::report_faults_in_mapped_files();
  CLI::App app{
      "dlsim: a discrete-event network simulator for communication-efficient distributed learning"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string(DLSIM_VERSION));

  std::string file, out;
  std::vector<std::string> sets;
  bool quiet = false;

  auto* run =
      app.add_subcommand("run",
                         "Simulate a scenario and write metrics.csv and summary.json (under "
                         "`mpirun -np K`: one simulation spread over the K ranks)");
  run->add_option("scenario", file, "Scenario JSON file")->required();
  run->footer(
      "Environment:\n  DLSIM_CACHE_DIR  where decompressed data sets are cached (default "
      "$XDG_CACHE_HOME/dlsim,\n                   else ~/.cache/dlsim); empty turns the cache "
      "off (README \"Data cache\")");
  run->add_option("--set", sets,
                  "Override a scenario key: KEY=VALUE (KEY a dotted path, VALUE JSON or a string)");
  run->add_option("--out", out, "Output folder (default: the scenario's output.dir)");
  run->add_flag("--quiet", quiet, "No progress line and no closing summary line");
  bool trace = false;
  std::int64_t trace_limit = 1'000'000;
  run->add_flag("--trace", trace,
                "Also write trace.json: a timeline of every node's compute, send and receive "
                "spans (Chrome trace-event format; open it in ui.perfetto.dev)");
  run->add_option("--trace-limit", trace_limit,
                  "At most this many events in trace.json (default 1000000); later ones are "
                  "dropped and the truncation noted in the file")
      ->check(dlsim::tool::integer_at_least(0));
  std::string threads = "1";
  bool profile = false;
  run->add_option("--threads", threads,
                  "Threads for the workers' math (default 1; 0 = all cores); results are "
                  "identical for every value");
  bool inline_metrics = false;
  run->add_flag("--inline-metrics", inline_metrics,
                "Evaluate the metrics rows on the simulation's own thread. By default they "
                "are evaluated while the simulation goes on, on a second thread with "
                "--threads 1, else chunk by chunk on the pool's threads between phases (the "
                "same values; not across MPI ranks, nor with stop.target_loss)");
  run->add_flag("--profile", profile,
                "Print the wall-time split (math, compression, metrics, engine), events/s and "
                "peak memory on stderr at the end");
  std::string memory_limit;
  dlsim::tool::add_memory_limit_option(run, memory_limit);
  bool data_per_rank = false;
  run->add_flag("--data-per-rank", data_per_rank,
                "Under mpirun: every rank loads its own copy of the data set (default: one "
                "rank per machine loads it into shared memory, which the others map)");

  auto* validate =
      app.add_subcommand("validate", "Check a scenario and print it with every default filled in");
  validate->add_option("scenario", file, "Scenario JSON file")->required();
  validate->add_option("--set", sets, "Override a scenario key: KEY=VALUE");
  dlsim::tool::add_memory_limit_option(validate, memory_limit);

  bool markdown = false;
  auto* schema = app.add_subcommand("schema", "Print the JSON Schema of scenario files");
  dlsim::tool::SweepCommand sweep(app);
  dlsim::tool::TopologyCommand topology(app);
  schema->add_flag("--markdown", markdown,
                   "Print the reference of every key (type, default, meaning) as Markdown instead");

  // A first word that is no command would otherwise be reported as "A subcommand is
  // required".
  if (argc > 1 && argv[1][0] != '-' &&
      app.get_subcommands([&](CLI::App* sub) { return sub->get_name() == argv[1]; }).empty())
    return input_error("command line", "unknown command " + dlsim::tool::quoted(argv[1]) +
                                           " (commands: run, validate, sweep, topology, schema; "
                                           "see dlsim --help)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    return input_error("command line", e.what());
  }
  // A write beyond `ulimit -f` must fail with EFBIG and be reported, not kill the process.
  std::signal(SIGXFSZ, SIG_IGN);

  int status = 0;
  try {
    if (run->parsed()) {
      status = cmd_run(file, sets, out, run->get_option("--out")->count() > 0, quiet, trace,
                       trace_limit, threads, inline_metrics, profile, memory_limit, data_per_rank,
                       std::vector<std::string>(argv, argv + argc));
    } else if (sweep.parsed()) {
      status = sweep.run();
    } else if (topology.parsed()) {
      status = topology.run();
    } else if (validate->parsed()) {
      const auto limit = dlsim::tool::parse_memory_limit(memory_limit);
      const auto scenario = load(file, sets);
      prepare_or_refuse(scenario, {.memory_limit = limit});  // data, shards, memory too
      std::cout << scenario.resolved.dump(2) << "\n";
    } else if (markdown) {
      std::cout << dlsim::sim::spec::reference_markdown();
    } else {
      std::cout << dlsim::sim::scenario_schema().dump(2) << "\n";
    }
  } catch (const InputError& e) {
    return input_error(e.where(), e.problem());
  } catch (const std::bad_alloc&) {  // reading a scenario, building a graph, planning a sweep
    return input_error("memory", "ran out of memory before anything was written");
  } catch (const std::exception& e) {
    dlsim::tool::print_error(e.what());
    return 1;
  }
  // `dlsim schema > /dev/full`: output that did not arrive is a failure.
  if (!std::cout.flush() || std::fflush(stdout) != 0 || std::ferror(stdout)) {
    dlsim::tool::print_error("cannot write standard output");
    return 1;
  }
  return status;
}
