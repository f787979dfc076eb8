// `--threads N` (sim/runtime/compute_job.hpp; the pool itself: job_pool_test.cpp): the
// engine runs an instant's jobs before the clock moves and resumes the processes at
// now + duration in node-id order; whole runs give
// byte-identical metrics.csv (but the wall_s column) and summary results for 1, 2 and 3
// threads on gossip, parameter-server, allgather, SVRG-family and push-sum scenarios;
// the wall-time totals add up; metrics rows evaluated beside the simulation are the inline
// evaluation's.
#include <atomic>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "run_helpers.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/job_pool.hpp"
#include "sim/metrics/evaluation_jobs.hpp"
#include "sim/runtime/node.hpp"

using namespace dlsim;
using sim::ComputeJob;

namespace {

// A job that records where in the phase it finished and resumes its process later.
struct TimedJob final : ComputeJob {
  sim::Engine* engine = nullptr;
  int node = 0;
  sim::SimTime duration{};
  std::vector<int>* finish_order = nullptr;
  bool ran = false;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiting_ = h;
    engine->submit(this);
  }
  void await_resume() const noexcept {}
  void run() noexcept override { ran = true; }
  void finish() override {
    finish_order->push_back(node);
    engine->schedule_resume(engine->now() + duration, waiting_);
  }
  int order() const override { return node; }
};

sim::Task<void> process(sim::Engine& engine, int node, sim::SimTime start, sim::SimTime duration,
                        std::vector<int>& finish_order, std::vector<double>& resumed_at) {
  co_await sim::Node::SleepAwaiter{&engine, start};
  TimedJob job;
  job.engine = &engine;
  job.node = node;
  job.duration = duration;
  job.finish_order = &finish_order;
  co_await job;
  REQUIRE(job.ran);
  resumed_at[std::size_t(node)] = engine.now().seconds();
}

}  // namespace

TEST_CASE("an instant's jobs finish in node-id order and resume at now + duration", "[threads]") {
  for (int threads : {1, 2}) {
    sim::Engine engine;
    engine.set_threads(threads);
    std::vector<int> finish_order;
    std::vector<double> resumed_at(4, -1);
    using sim::SimTime;
    // Spawned in the order 3, 1, 0, 2; nodes 0, 1, 3 compute at t = 1 s, node 2 at 2 s.
    engine.spawn(process(engine, 3, SimTime::from_seconds(1), SimTime::from_seconds(0.5),
                         finish_order, resumed_at));
    engine.spawn(process(engine, 1, SimTime::from_seconds(1), SimTime::from_seconds(0.25),
                         finish_order, resumed_at));
    engine.spawn(process(engine, 0, SimTime::from_seconds(1), SimTime::from_seconds(0),
                         finish_order, resumed_at));
    engine.spawn(process(engine, 2, SimTime::from_seconds(2), SimTime::from_seconds(1),
                         finish_order, resumed_at));
    engine.run();
    CHECK(finish_order == std::vector<int>{0, 1, 3, 2});
    CHECK(resumed_at == std::vector<double>{1.0, 1.25, 3.0, 1.5});
    CHECK(engine.job_phases() == 2);
    CHECK(engine.live_processes() == 0);
  }
}

namespace {

// A job that logs its run ('r', node) and its finish ('f', node); the log is written by
// run() on any thread, under a lock.
struct LoggedJob final : ComputeJob {
  sim::Engine* engine = nullptr;
  int node = 0;
  std::vector<std::pair<char, int>>* log = nullptr;
  std::mutex* log_mutex = nullptr;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    waiting_ = h;
    engine->submit(this);
  }
  void await_resume() const noexcept {}
  std::thread::id ran_on;
  void run() noexcept override {
    ran_on = std::this_thread::get_id();
    const std::lock_guard lock(*log_mutex);
    log->emplace_back('r', node);
  }
  void finish() override {
    log->emplace_back('f', node);
    engine->schedule_resume(engine->now() + sim::SimTime::from_seconds(node), waiting_);
  }
  int order() const override { return node; }
};

sim::Task<void> logged(sim::Engine& engine, int node, std::vector<std::pair<char, int>>& log,
                       std::mutex& log_mutex, std::vector<double>& resumed_at,
                       std::vector<std::thread::id>* ran_on = nullptr) {
  LoggedJob job;
  job.engine = &engine;
  job.node = node;
  job.log = &log;
  job.log_mutex = &log_mutex;
  co_await job;
  resumed_at[std::size_t(node)] = engine.now().seconds();
  if (ran_on) (*ran_on)[std::size_t(node)] = job.ran_on;
}

}  // namespace

TEST_CASE(
    "with one thread, or without math, jobs registered in node order finish right after "
    "their run",
    "[threads]") {
  // Spawned (and so registered) in node order: one thread walks the phase once, finish()
  // after each run(); a pool runs them all, then finishes them in order. Either way the
  // finish() calls, and so the resumptions, come in the same order. Jobs without math (a
  // profile model's: a cost and a size each) run on the engine thread like one thread's,
  // whatever the pool (Engine::set_jobs_without_math).
  struct Setup {
    int threads;
    bool without_math;
  };
  for (const Setup setup : {Setup{1, false}, Setup{2, false}, Setup{2, true}, Setup{3, true}}) {
    CAPTURE(setup.threads, setup.without_math);
    using Log = std::vector<std::pair<char, int>>;
    constexpr int kNodes = 40;
    sim::Engine engine;
    engine.set_threads(setup.threads);
    engine.set_jobs_without_math(setup.without_math);
    REQUIRE(engine.threads() == setup.threads);  // the pool stays, for other work
    Log log;
    std::mutex log_mutex;
    std::vector<double> resumed_at(kNodes, -1);
    std::vector<std::thread::id> ran_on(kNodes);
    for (int node = 0; node < kNodes; ++node)
      engine.spawn(logged(engine, node, log, log_mutex, resumed_at, &ran_on));
    engine.run();
    REQUIRE(log.size() == 2 * kNodes);
    Log interleaved, finishes;
    for (int node = 0; node < kNodes; ++node) {
      interleaved.emplace_back('r', node);
      interleaved.emplace_back('f', node);
      finishes.emplace_back('f', node);
    }
    if (setup.threads == 1 || setup.without_math) {
      CHECK(log == interleaved);
      std::size_t elsewhere = 0;
      for (const std::thread::id& id : ran_on) elsewhere += id != std::this_thread::get_id();
      CHECK(elsewhere == 0);
    } else {
      CHECK(Log(log.begin() + kNodes, log.end()) == finishes);
    }
    for (int node = 0; node < kNodes; ++node) CHECK(resumed_at[std::size_t(node)] == node);
    CHECK(engine.job_phases() == 1);
  }
}

TEST_CASE("compute_uncharged: a job phase with math, the callable on the spot without",
          "[threads]") {
  for (bool has_math : {true, false}) {
    sim::Engine engine;
    sim::Network network(engine, sim::NetworkConfig(1, sim::SimTime{}, 1e9, sim::Sharing::fair, 0));
    sim::ComputeModel compute(1e9, {}, 0, 1, 1);
    sim::Node me(0, engine, network, compute);
    bool ran = false, inside_job = false;
    double resumed_at = -1;
    auto process = [&]() -> sim::Task<void> {
      co_await me.sleep(sim::SimTime::from_seconds(1));
      co_await me.compute_uncharged(
          [&] {
            ran = true;
            inside_job = sim::inside_compute_job;
            return models::ComputeCost{};
          },
          has_math);
      resumed_at = engine.now().seconds();
    };
    engine.spawn(process());
    engine.run();
    CAPTURE(has_math);
    CHECK(ran);
    CHECK(inside_job == has_math);                       // a job, or the caller's thread
    CHECK(engine.job_phases() == (has_math ? 1u : 0u));  // on the spot: no phase
    CHECK(resumed_at == 1.0);                            // no simulated time either way
  }
  // On the spot, math that charges a cost is an error, not a silently free computation.
  sim::Engine engine;
  sim::Network network(engine, sim::NetworkConfig(1, sim::SimTime{}, 1e9, sim::Sharing::fair, 0));
  sim::ComputeModel compute(1e9, {}, 0, 1, 1);
  sim::Node me(0, engine, network, compute);
  auto process = [&]() -> sim::Task<void> {
    co_await me.compute_uncharged([] { return models::ComputeCost{0, 1.0}; }, false);
  };
  engine.spawn(process());
  CHECK_THROWS_AS(engine.run(), std::logic_error);
}

namespace {

// Hands the awaiting coroutine its own handle and goes on at once.
struct OwnHandle {
  std::coroutine_handle<> handle;
  bool await_ready() const noexcept { return false; }
  bool await_suspend(std::coroutine_handle<> h) noexcept {
    handle = h;
    return false;  // resume at once
  }
  std::coroutine_handle<> await_resume() const noexcept { return handle; }
};

}  // namespace

// The engine prefetches the frame of the process a job resumes (sim/engine/prefetch.hpp),
// found through ComputeJob::waiting(): it must be the awaiting process, set before run().
TEST_CASE("a compute job names the process that waits for it", "[threads]") {
  sim::Engine engine;
  sim::Network network(engine, sim::NetworkConfig(1, sim::SimTime{}, 1e9, sim::Sharing::fair, 0));
  sim::ComputeModel compute(1e9, {}, 0, 1, 1);
  sim::Node me(0, engine, network, compute);
  void* own = nullptr;
  void* named_in_run = nullptr;
  bool resumed = false;
  auto process = [&]() -> sim::Task<void> {
    own = (co_await OwnHandle{}).address();
    const sim::ComputeJob* job = nullptr;
    auto awaiter = me.compute([&] {
      named_in_run = job->waiting().address();
      return models::ComputeCost{0, 1e-3};
    });
    job = &awaiter;
    co_await awaiter;
    resumed = true;
  };
  engine.spawn(process());
  engine.run();
  REQUIRE(resumed);
  CHECK(own != nullptr);
  CHECK(named_in_run == own);
}

namespace {

struct Result {
  std::string metrics;  // metrics.csv without the wall_s column
  std::string workers;  // workers.csv (metrics.per_worker), else empty
  nlohmann::json summary;
};

std::string without_last_column(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

// `sample_every`: time one math or compression call in this many (1: every call, as
// --profile does; 16: dlsim run's default).
// `observer`: also told of every row.
Result run_with(const nlohmann::json& doc, int threads, int sample_every = 1,
                bool inline_metrics = false, sim::MetricsObserver* observer = nullptr) {
  auto prepared = sim::prepare(sim::load_scenario(doc));
  sim::RunOptions options;
  options.out_dir = test::fresh_dir("threads");
  options.threads = threads;
  options.wall_sample_every = sample_every;
  options.inline_metrics = inline_metrics;
  if (observer) options.observers.push_back(observer);
  Result r;
  r.summary = sim::run(prepared, options);
  r.metrics = without_last_column(test::read_text(options.out_dir / "metrics.csv"));
  if (std::filesystem::exists(options.out_dir / "workers.csv"))
    r.workers = test::read_text(options.out_dir / "workers.csv");
  std::filesystem::remove_all(options.out_dir);
  return r;
}

nlohmann::json classification(int workers, nlohmann::json algorithm, int iterations) {
  return {{"workers", workers},
          {"seed", 3},
          {"data",
           {{"source", "synthetic-classification"},
            {"samples", 2400},
            {"features", 20},
            {"classes", 4},
            {"test_fraction", 0.25},
            {"partition", {{"kind", "dirichlet"}, {"alpha", 0.5}}}}},
          {"model", {{"kind", "softmax"}, {"l2", 1e-4}}},
          {"algorithm", algorithm},
          {"topology", {{"kind", "ring"}}},
          {"network", {{"latency", "10us"}, {"bandwidth", "1Gbps"}}},
          {"compute", {{"speed", "1GFLOPS"}, {"jitter", 0.3}}},
          {"stop", {{"iterations", iterations}}},
          {"metrics", {{"every", {{"iterations", 5}}}, {"test", true}}}};
}

// Everything in summary.json that is not a wall-clock measurement.
void require_same_results(const Result& a, const Result& b) {
  REQUIRE(a.metrics == b.metrics);
  nlohmann::json fa = a.summary["final"], fb = b.summary["final"];
  fa.erase("wall_s");
  fb.erase("wall_s");
  CHECK(fa == fb);
  for (const char* key :
       {"events", "messages", "bits_total", "bytes_wire", "sim_time_s", "jobs", "job_phases"})
    CHECK(a.summary["totals"][key] == b.summary["totals"][key]);
  CHECK(a.summary["complete"] == b.summary["complete"]);
}

// The split adds up: math + compression + metrics + engine = wall_s, every part >= 0,
// and the jobs' own clocks never exceed wall time × threads.
void require_consistent_totals(const nlohmann::json& summary, int threads) {
  const nlohmann::json& t = summary["totals"];
  const double wall = t["wall_s"].get<double>();
  const double parts = t["wall_math_s"].get<double>() + t["wall_compress_s"].get<double>() +
                       t["wall_metrics_s"].get<double>() + t["wall_engine_s"].get<double>();
  CHECK(t["threads"].get<int>() == threads);
  CHECK(t["jobs"].get<std::uint64_t>() > 0);
  CHECK(t["job_phases"].get<std::uint64_t>() <= t["jobs"].get<std::uint64_t>());
  for (const char* key : {"wall_math_s", "wall_compress_s", "wall_metrics_s", "wall_engine_s"})
    CHECK(t[key].get<double>() >= 0);
  CHECK(parts == Approx(wall).epsilon(1e-9));
  CHECK(t["wall_math_s"].get<double>() <= wall * threads);
  CHECK(t["jobs_thread_s"].get<double>() <= wall * threads * 1.05 + 0.01);
  CHECK(t["events_per_second"].get<double>() > 0);
  CHECK(t["peak_rss_bytes"].get<std::uint64_t>() > 0);
}

// With every call timed the split is exact and checked; timing one call in 16 (dlsim
// run's default) only estimates it, and must not change any result either.
void require_same_for_every_thread_count(const nlohmann::json& doc) {
  const Result one = run_with(doc, 1);
  require_consistent_totals(one.summary, 1);
  for (int threads : {2, 3}) {
    INFO("threads " << threads);
    const Result many = run_with(doc, threads);
    require_same_results(one, many);
    require_consistent_totals(many.summary, threads);
    INFO("one call in 16 timed");
    require_same_results(one, run_with(doc, threads, 16));
  }
  require_same_results(one, run_with(doc, 1, 16));
}

}  // namespace

TEST_CASE("CHOCO-SGD with top-k on a ring: identical for 1, 2 and 3 threads", "[threads]") {
  for (const char* order : {"adagossip", "choco-paper"}) {
    INFO(order);
    const auto doc = classification(8,
                                    {{"kind", "choco-sgd"},
                                     {"step_size", 0.1},
                                     {"batch_size", 16},
                                     {"momentum", 0.9},
                                     {"consensus_step", 0.3},
                                     {"order", order},
                                     {"compressor", {{"kind", "top-k"}, {"ratio", 0.9}}}},
                                    30);
    require_same_for_every_thread_count(doc);
  }
}

TEST_CASE("parameter-server SGD with qsgd: identical for 1, 2 and 3 threads", "[threads]") {
  auto doc = classification(6,
                            {{"kind", "sgd"},
                             {"collective", "parameter-server"},
                             {"step_size", 0.1},
                             {"batch_size", 16},
                             {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}},
                            30);
  doc.erase("topology");
  require_same_for_every_thread_count(doc);
}

TEST_CASE("allgather SGD and LPC-SVRG: identical for 1, 2 and 3 threads", "[threads]") {
  auto sgd = classification(5,
                            {{"kind", "sgd"},
                             {"collective", "allgather"},
                             {"step_size", 0.1},
                             {"batch_size", 16},
                             {"compressor", {{"kind", "top-k"}, {"ratio", 0.5}}}},
                            20);
  sgd.erase("topology");
  require_same_for_every_thread_count(sgd);
  auto svrg = classification(
      4,
      {{"kind", "lpc-svrg"}, {"collective", "allgather"}, {"step_size", 0.05}, {"batch_size", 16}},
      25);
  svrg.erase("topology");
  require_same_for_every_thread_count(svrg);
}

TEST_CASE("D-PSGD, SGP and time-varying CHOCO: identical for 1, 2 and 3 threads", "[threads]") {
  auto dpsgd = classification(6, {{"kind", "dpsgd"}, {"step_size", 0.1}, {"batch_size", 16}}, 20);
  require_same_for_every_thread_count(dpsgd);
  auto sgp = classification(6, {{"kind", "sgp"}, {"step_size", 0.1}, {"batch_size", 16}}, 20);
  sgp["topology"] = {{"kind", "directed-exponential"}, {"weights", "uniform"}};
  require_same_for_every_thread_count(sgp);
  auto matching = classification(6,
                                 {{"kind", "choco-sgd"},
                                  {"step_size", 0.1},
                                  {"batch_size", 16},
                                  {"consensus_step", 0.3},
                                  {"compressor", {{"kind", "random-k"}, {"ratio", 0.5}}}},
                                 20);
  matching["topology"] = {{"kind", "random-matching"}};
  require_same_for_every_thread_count(matching);
}

namespace {

// Which thread told each row, and the rows' iterations in the order told.
struct RowThreads final : sim::MetricsObserver {
  std::vector<std::thread::id> threads;
  std::vector<std::int64_t> iterations;
  void on_row(const sim::MetricsRow& row) override {
    threads.push_back(std::this_thread::get_id());
    iterations.push_back(row.iteration);
  }
};

}  // namespace

TEST_CASE("metrics beside: in one process, without a target loss or --inline-metrics",
          "[threads]") {
  const sim::Scenario s = sim::load_scenario(classification(8, {{"kind", "sgd"}}, 4));
  CHECK(sim::metrics_in_background(s, 1, false));
  CHECK_FALSE(sim::metrics_in_background(s, 1, true));   // --inline-metrics
  CHECK_FALSE(sim::metrics_in_background(s, 2, false));  // across ranks
  auto targeted = classification(8, {{"kind", "sgd"}}, 4);
  targeted["stop"]["target_loss"] = 0.1;
  CHECK_FALSE(sim::metrics_in_background(sim::load_scenario(targeted), 1, false));
}

TEST_CASE("metrics evaluated beside the simulation: inline evaluation's rows, in order",
          "[threads]") {
  // The rows are evaluated while the simulation goes on (recorder.hpp): with one math
  // thread on a thread of their own, with a pool beside its phases, chunk by chunk. metrics.csv,
  // workers.csv and the summary's results are those of --inline-metrics, and the
  // observers hear of every row on the simulation's thread, in order. A target loss
  // keeps the evaluation inline (its stop needs each row's loss at once).
  auto doc = classification(8,
                            {{"kind", "choco-sgd"},
                             {"step_size", 0.1},
                             {"batch_size", 16},
                             {"consensus_step", 0.3},
                             {"compressor", {{"kind", "top-k"}, {"ratio", 0.9}}}},
                            40);
  doc["metrics"]["every"] = {{"iterations", 2}};
  doc["metrics"]["per_worker"] = true;
  // 9,000 training rows make three chunks (sim/metrics/evaluation_jobs.hpp): a row's
  // jobs are shared among the helpers and the simulation's thread.
  doc["data"]["samples"] = 12000;
  REQUIRE(9000 > 2 * sim::kEvaluationChunkRows);
  const Result on_thread = run_with(doc, 1, 1, true);
  CHECK(on_thread.summary["totals"]["metrics_thread_s"].get<double>() == 0);
  for (int threads : {1, 2, 3}) {
    INFO("threads " << threads);
    RowThreads told;
    const Result beside = run_with(doc, threads, 1, false, &told);
    require_same_results(beside, on_thread);
    CHECK(beside.workers == on_thread.workers);
    CHECK_FALSE(beside.workers.empty());
    require_consistent_totals(beside.summary, threads);
    // A thread of its own always evaluates; a helper only when it took the row first.
    if (threads == 1) CHECK(beside.summary["totals"]["metrics_thread_s"].get<double>() > 0);
    REQUIRE(told.iterations.size() == 21);  // iterations 0, 2, ..., 40
    for (std::size_t i = 0; i < told.iterations.size(); ++i) {
      CHECK(told.iterations[i] == std::int64_t(2 * i));
      CHECK(told.threads[i] == std::this_thread::get_id());
    }
  }

  // Heavy phases (2,000 features: 8 x 16 x 2,000 x 4 multiply-adds and more) keep a pool's
  // threads busy; its helpers take the rows' chunks between phases all the same.
  auto heavy = doc;
  heavy["data"]["features"] = 2000;
  heavy["stop"]["iterations"] = 6;
  const Result heavy_inline = run_with(heavy, 2, 1, true);
  const Result heavy_one = run_with(heavy, 1);
  const Result heavy_pool = run_with(heavy, 2);
  require_same_results(heavy_one, heavy_inline);
  require_same_results(heavy_pool, heavy_inline);
  CHECK(heavy_one.summary["totals"]["metrics_thread_s"].get<double>() > 0);

  const double start_loss = on_thread.summary["final"]["train_loss"].get<double>() + 0.3;
  doc["stop"]["target_loss"] = start_loss;  // reached early
  const Result targeted = run_with(doc, 1, 1, false);
  CHECK(targeted.summary["totals"]["metrics_thread_s"].get<double>() == 0);
  CHECK(targeted.summary["final"]["iteration"].get<std::int64_t>() < 40);
}
