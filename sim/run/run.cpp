// run(): builds the simulated cluster for a prepared scenario, simulates it, and
// writes metrics.csv (and with metrics.per_worker workers.csv) as it goes and summary.json
// (at the end, atomically).
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string_view>

#include "sim/algorithms/algorithms.hpp"
#include "sim/engine/byte_codec.hpp"
#include "sim/engine/heap_prefault.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/metrics/csv_writer.hpp"
#include "sim/metrics/output_lock.hpp"
#include "sim/metrics/progress_line.hpp"
#include "sim/metrics/workers_csv_writer.hpp"
#include "sim/run/interrupt.hpp"
#include "sim/run/model_saver.hpp"
#include "sim/run/provenance.hpp"
#include "sim/run/runner.hpp"
#include "sim/run/summary.hpp"
#include "sim/runtime/node_failures.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/trace/chrome_trace_writer.hpp"

namespace dlsim::sim {

namespace {

NetworkConfig network_config(const Scenario& s) {
  const NetworkSpec& n = s.network;
  NetworkConfig c(node_count(s), n.latency, n.bandwidth,
                  n.sharing == "fifo" ? Sharing::fifo : Sharing::fair, n.header);
  c.set_model(n.model == "lv08" ? NetworkModel::lv08 : NetworkModel::cm02);
  c.set_all_nics(n.nic_egress, n.nic_ingress);
  for (const auto& node : n.nodes) {
    if (node.egress) c.set_egress(NodeId(node.id), *node.egress);
    if (node.ingress) c.set_ingress(NodeId(node.id), *node.ingress);
  }
  for (const auto& l : n.links) c.set_link(NodeId(l.from), NodeId(l.to), l.latency, l.bandwidth);
  NetworkFaults& f = c.faults();
  f.seed = s.seed;
  f.drop_probability = n.drop_probability;
  for (const auto& l : n.links)
    if (l.drop_probability)
      f.link_drop[NetworkFaults::link_key(NodeId(l.from), NodeId(l.to))] = *l.drop_probability;
  f.retransmit_timeout = n.retransmit_timeout;
  for (const auto& e : n.schedule) {
    ScheduledChange change;
    change.at = e.at;
    if (e.node) change.node = NodeId(*e.node);
    if (e.from) change.from = NodeId(*e.from);
    if (e.to) change.to = NodeId(*e.to);
    change.latency = e.latency;
    change.bandwidth = e.bandwidth;
    change.egress = e.egress;
    change.ingress = e.ingress;
    f.schedule.push_back(change);
  }
  for (const auto& o : n.down) f.outages.push_back({NodeId(o.from), NodeId(o.to), o.start, o.end});
  return c;
}

// Stops the engine after the iteration during which a stop signal arrived.
class InterruptWatcher final : public MetricsObserver {
 public:
  explicit InterruptWatcher(Engine& engine) : engine_(engine) {}
  void on_row(const MetricsRow&) override { check(); }
  void on_progress(const Progress&) override { check(); }
  bool interrupted() const { return interrupted_; }

 private:
  void check() {
    if (interrupt_signal() == 0 || interrupted_) return;
    interrupted_ = true;
    engine_.stop();
  }
  Engine& engine_;
  bool interrupted_ = false;
};

// workers/model_<i>.npy of an earlier run in the same folder (output.save_model), and
// the folder itself when nothing else is in it.
void remove_saved_worker_models(const std::filesystem::path& out_dir) {
  const std::filesystem::path workers = out_dir / "workers";
  std::error_code ec;
  if (!std::filesystem::is_directory(workers, ec)) return;
  std::vector<std::filesystem::path> stale;
  for (const auto& entry : std::filesystem::directory_iterator(workers)) {
    const std::string name = entry.path().filename().string();
    if (name.starts_with("model_") && name.ends_with(".npy")) stale.push_back(entry.path());
  }
  for (const auto& file : stale) std::filesystem::remove(file);
  if (std::filesystem::is_empty(workers, ec)) std::filesystem::remove(workers, ec);
}

// Runs `setup` (which may throw only on rank 0) and then, on every rank, throws what
// rank 0 threw: the other ranks must not go on into a simulation rank 0 has left.
template <class Setup>
void agree_with_rank0(RankGroup& ranks, Setup&& setup) {
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  std::optional<InputError> failed;
  try {
    setup();
  } catch (const InputError& e) {
    failed = e;
  }
  if (ranks.rank() == 0) {
    w.put(failed.has_value());
    if (failed) {
      w.put_string(failed->where());
      w.put_string(failed->problem());
    }
  }
  ranks.broadcast(bytes, 0);
  ByteReader r(bytes);
  if (!r.get<bool>()) return;
  std::string where = r.get_string();
  throw InputError(std::move(where), r.get_string());
}

// summary.json totals.per_rank: each rank's peak RSS and the wall seconds its compute
// phases took (the math it ran), on rank 0 (one entry in a single process).
nlohmann::json per_rank_totals(RankGroup* ranks, std::uint64_t peak_rss_bytes, double busy_s) {
  auto entry = [](int rank, std::uint64_t rss, double busy) {
    return nlohmann::json{{"rank", rank}, {"peak_rss_bytes", rss}, {"busy_wall_s", busy}};
  };
  if (!ranks) return nlohmann::json::array({entry(0, peak_rss_bytes, busy_s)});
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  w.put(peak_rss_bytes);
  w.put(busy_s);
  const Gathered all = ranks->gather(bytes);
  nlohmann::json list = nlohmann::json::array();
  if (ranks->rank() != 0) return list;
  for (int r = 0; r < ranks->size(); ++r) {
    ByteReader in(all.of(r));
    const auto rss = in.get<std::uint64_t>();
    list.push_back(entry(r, rss, in.get<double>()));
  }
  return list;
}

/// Whether the user asked glibc's malloc for huge pages (GLIBC_TUNABLES with
/// glibc.malloc.hugetlb=1 or 2: README, "Huge pages").
bool malloc_huge_pages() {
  const char* tunables = std::getenv("GLIBC_TUNABLES");
  if (!tunables) return false;
  const std::string_view text(tunables), key = "glibc.malloc.hugetlb=";
  const std::size_t at = text.find(key);
  return at != std::string_view::npos && at + key.size() < text.size() &&
         text[at + key.size()] != '0';
}

/// The heap pad of HeapPrefault (sim/engine/heap_prefault.hpp) for this run, or 0 for
/// none: a run whose per-node and per-worker state (the estimate's "engine" and "model
/// state" pieces, allocated in small blocks) reaches 256 MB grows the heap by a 32nd of
/// it at a time, 16 to 64 MB. Smaller runs fault their few pages as they come, and with
/// malloc's huge pages asked for the heap is left to them (measured slower together).
std::size_t prefault_pad(const MemoryEstimate& m) {
  if (malloc_huge_pages()) return 0;
  double small_blocks = 0;
  for (const MemoryPiece& piece : m.pieces)
    if (piece.name == "engine" || piece.name == "model state") small_blocks += piece.bytes;
  constexpr double MB = 1 << 20;
  if (small_blocks < 256 * MB) return 0;
  return std::size_t(std::clamp(small_blocks / 32, 16 * MB, 64 * MB));
}

}  // namespace

bool metrics_in_background(const Scenario& s, int ranks, bool inline_metrics) {
  return ranks <= 1 && !inline_metrics && !s.stop.target_loss;
}

nlohmann::json run(PreparedRun& p, const RunOptions& options) {
  const auto wall_start = std::chrono::steady_clock::now();
  RunProvenance provenance{options.argv, std::chrono::system_clock::now(), {}, options.threads};
  const Scenario& s = p.scenario;

  // Across ranks only rank 0 writes, and the others learn whether it could start.
  RankGroup* const ranks = options.ranks;
  const bool writer = !ranks || ranks->rank() == 0;

  // Creates the folder; a second writer into it is refused (exit 2) before anything is
  // written. Held until run() returns.
  std::optional<OutputLock> lock;
  if (ranks) {
    agree_with_rank0(*ranks, [&] {
      if (writer) lock.emplace(options.out_dir, options.out_where);
    });
  } else {
    lock.emplace(options.out_dir, options.out_where);
  }
  if (writer) {
    for (const char* stale :
         {"metrics.csv", "metrics.csv.partial", "summary.json", "trace.json", "trace.json.partial",
          "workers.csv", "workers.csv.partial", "model.npy"})
      std::filesystem::remove(options.out_dir / stale);
    remove_saved_worker_models(options.out_dir);
  }

  // Large runs populate their heap in bulk (sim/engine/heap_prefault.hpp).
  std::optional<HeapPrefault> prefault;
  if (const std::size_t pad = prefault_pad(p.memory); pad > 0) prefault.emplace(pad);
  const std::size_t prefaulted_before = HeapPrefault::populated_bytes();
  Engine engine;
  engine.set_threads(options.threads);
  engine.set_jobs_without_math(!p.objective->has_math());
  // A signal stops one process at its own moment: across ranks mpirun ends them all.
  if (!ranks) engine.set_stop_request(&interrupt_request());
  Network network(engine, network_config(s));
  network.reserve_transfers(std::size_t(p.memory.messages_per_round));
  std::unique_ptr<ChromeTraceWriter> trace;
  // Every rank runs the same engine and network, so rank 0 sees every span to trace.
  if (options.trace && writer) {
    trace = std::make_unique<ChromeTraceWriter>(options.out_dir, int(s.workers), node_count(s),
                                                options.trace_limit);
    network.set_observer(trace.get());
  }
  ComputeModel compute(s.compute.speed, s.compute.per_worker, s.compute.jitter, s.seed,
                       node_count(s));
  compute.set_wall_sample_every(options.wall_sample_every);

  const models::Dataset* train = p.data ? &p.data->train : nullptr;
  const models::Dataset* loss_set = p.data ? &p.data->loss_set() : nullptr;  // eval_samples
  const models::Dataset* test = p.data && p.data->test && s.metrics.test ? &*p.data->test : nullptr;
  Evaluator evaluator(*p.objective, loss_set, test, s.decentralized());
  evaluator.set_pool(engine.pool());  // rows beside the simulation run without it

  std::unique_ptr<CsvWriter> csv;
  ProgressLine progress(stderr);
  InterruptWatcher interrupt_watcher(engine);
  std::vector<MetricsObserver*> observers;
  if (writer) {
    csv = std::make_unique<CsvWriter>(options.out_dir);
    observers.push_back(csv.get());
  }
  if (!ranks) observers.push_back(&interrupt_watcher);
  if (options.progress && writer) observers.push_back(&progress);
  std::unique_ptr<WorkersCsvWriter> workers_csv;  // metrics.per_worker
  if (s.metrics.per_worker && writer) {
    workers_csv = std::make_unique<WorkersCsvWriter>(options.out_dir);
    observers.push_back(workers_csv.get());
  }
  std::unique_ptr<ModelSaver> model_saver;  // output.save_model
  if (s.save_model && writer) {
    model_saver = std::make_unique<ModelSaver>(options.out_dir, s.metrics.per_worker);
    observers.push_back(model_saver.get());
  }

  RecorderPlan plan{model_holders(s), p.max_iterations, p.samples_per_iteration,
                    p.train_samples,  s.metrics,        s.stop};
  plan.background = metrics_in_background(s, ranks ? ranks->size() : 1, options.inline_metrics);
  observers.insert(observers.end(), options.observers.begin(), options.observers.end());
  Recorder recorder(engine, network, evaluator, plan, observers, wall_start);
  std::unique_ptr<RankJobs> rank_jobs;  // across ranks: whose math runs here
  if (ranks) {
    const WorkerPlacement placement(s.workers, ranks->size(), ranks->rank());
    recorder.set_ranks(ranks, placement);
    rank_jobs = std::make_unique<RankJobs>(*ranks, placement, node_count(s));
    engine.set_job_exchange(rank_jobs.get());
  }
  WallAccount wall;
  wall.sample_every = options.wall_sample_every;

  auto init_rng = make_rng(s.seed, "init");
  Training training{s,  *p.objective, train, p.shards, p.objective->initial_point(init_rng),
                    {}, recorder,     wall};
  training.ranks = rank_jobs.get();
  for (int i = 0, nodes = node_count(s); i < nodes; ++i)
    training.nodes.emplace_back(i, engine, network, compute);
  std::unique_ptr<NodeFailures> failures;  // network.faults.fail (node_failures.hpp)
  if (!s.network.fail.empty()) {
    std::vector<NodeFailures::Failure> planned;
    for (const auto& f : s.network.fail) planned.push_back({NodeId(f.node), f.at});
    failures = std::make_unique<NodeFailures>(engine, network, int(s.workers), std::move(planned),
                                              s.network.fail_timeout);
    training.failures = failures.get();
  }

  recorder.start(training.initial_models(plan.holders));
  launch_algorithm(engine, training);
  const bool interrupted_before_start = interrupt_signal() != 0;
  if (!interrupted_before_start) engine.run(s.stop.sim_time.value_or(SimTime::max()));
  recorder.finish();
  if (trace) trace->finish();
  if (model_saver) model_saver->write();

  RunTotals totals;
  totals.complete =
      !interrupted_before_start && !interrupt_watcher.interrupted() && interrupt_signal() == 0;
  totals.reached_clock_end = engine.reached_clock_end();
  totals.events = engine.events_processed();
  totals.counters = network.counters();
  totals.sim_time = engine.now();
  totals.wall_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  // The parallel phases' wall time is split between math and compression in the
  // proportion of the jobs' own clocks (compute_job.hpp); with one thread that is the
  // jobs' time itself. Math and compression outside jobs ran on this thread.
  const ComputeModel::JobTotals& jobs = compute.job_totals();
  const double compress_share = jobs.job_s > 0 ? jobs.compress_s / jobs.job_s : 0.0;
  totals.wall_math_s = wall.math_s + engine.jobs_wall_s() * (1 - compress_share);
  totals.wall_compress_s = wall.compress_s + engine.jobs_wall_s() * compress_share;
  totals.wall_metrics_s = recorder.wall_metrics_s();
  totals.metrics_thread_s = recorder.background_metrics_s();
  totals.threads = engine.threads();
  totals.jobs = jobs.jobs;
  totals.job_phases = engine.job_phases();
  totals.jobs_thread_s = jobs.job_s;
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  totals.peak_rss_bytes = std::uint64_t(usage.ru_maxrss) * 1024;
  totals.memory = p.memory;
  prefault.reset();  // its thread stops after the chunk at hand: the count is final
  totals.heap_prefaulted_bytes = HeapPrefault::populated_bytes() - prefaulted_before;

  nlohmann::json summary = make_summary(s, recorder.last_row(), totals);
  summary["totals"]["ranks"] = ranks ? ranks->size() : 1;
  summary["totals"]["per_rank"] =
      per_rank_totals(ranks, totals.peak_rss_bytes, engine.jobs_wall_s());
  if (failures) summary["failures"] = failures->summary();
  provenance.threads = totals.threads;
  provenance.finished = std::chrono::system_clock::now();
  summary["run"] = provenance_json(provenance);
  if (!writer) return summary;
  write_file_atomically(options.out_dir / "summary.json", summary.dump(2) + "\n");
  for (auto* o : observers) o->on_finish(summary);
  return summary;
}

}  // namespace dlsim::sim
