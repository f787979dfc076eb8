// Issue 9: no heap allocation per message in steady state. This test binary replaces
// the C allocator's entry points (malloc, calloc, realloc, memalign family: glibc lets a
// program define them, "Replacing malloc" in its manual) with counting wrappers around
// glibc's own __libc_* functions. Counting at malloc sees every allocation: the global
// operator new (libstdc++'s calls malloc), std containers, shared_ptr control blocks,
// coroutine frames and Eigen's vectors (Eigen calls malloc directly).
//
// Each scenario runs in-process through the same path as `dlsim run` for R and for 2R
// iterations with metrics only at the start and the end, so the two runs differ only by
// R more iterations of messages. Their allocation counts must then differ by nothing
// (the message path) or, where an algorithm's own math allocates a temporary per
// iteration, by that — checked to be independent of the number of messages by running
// the same scenario with twice the workers.
//
// Under sanitizers (their allocators replace malloc themselves) the count is off and the
// scenario checks are skipped.
#include <malloc.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include <Eigen/Dense>

#include "run_helpers.hpp"
#include "sanitizer_build.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/metrics/evaluator.hpp"
#include "sim/metrics/recorder.hpp"
#include "sim/runtime/compute_model.hpp"
#include "sim/scenario/topology_build.hpp"

#if !DLSIM_SANITIZED && defined(__GLIBC__)
#define DLSIM_COUNT_ALLOCATIONS 1
#else
#define DLSIM_COUNT_ALLOCATIONS 0
#endif

namespace {
std::atomic<std::uint64_t> allocation_count{0};
// Bytes of live blocks (malloc_usable_size) and their high-water mark since the last
// reset_peak_bytes(): what a run holds at its peak.
std::atomic<std::int64_t> live_bytes{0};
std::atomic<std::int64_t> peak_bytes{0};
[[maybe_unused]] void add_live(std::int64_t bytes) {
  const std::int64_t now = live_bytes.fetch_add(bytes, std::memory_order_relaxed) + bytes;
  std::int64_t peak = peak_bytes.load(std::memory_order_relaxed);
  while (now > peak && !peak_bytes.compare_exchange_weak(peak, now, std::memory_order_relaxed)) {
  }
}
[[maybe_unused]] void* counted_live(void* p) {
  if (p) add_live(std::int64_t(malloc_usable_size(p)));
  return p;
}
// Allocations of at least big_allocation_size bytes are also counted here (the size is
// lowered only while a test looks at large tables).
std::atomic<std::size_t> big_allocation_size{SIZE_MAX};
std::atomic<std::uint64_t> big_allocation_count{0};
// Unused where allocations are not counted (sanitizer builds).
[[maybe_unused]] void count_one(std::size_t size) {
  allocation_count.fetch_add(1, std::memory_order_relaxed);
  if (size >= big_allocation_size.load(std::memory_order_relaxed))
    big_allocation_count.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#if DLSIM_COUNT_ALLOCATIONS
extern "C" {
void* __libc_malloc(std::size_t size);
void* __libc_calloc(std::size_t count, std::size_t size);
void* __libc_realloc(void* p, std::size_t size);
void* __libc_memalign(std::size_t alignment, std::size_t size);
void __libc_free(void* p);

void* malloc(std::size_t size) noexcept {
  count_one(size);
  return counted_live(__libc_malloc(size));
}
void* calloc(std::size_t count, std::size_t size) noexcept {
  count_one(count * size);
  return counted_live(__libc_calloc(count, size));
}
void* realloc(void* p, std::size_t size) noexcept {
  count_one(size);
  const std::int64_t old = p ? std::int64_t(malloc_usable_size(p)) : 0;
  void* q = __libc_realloc(p, size);
  if (q || size == 0) add_live(-old);  // a failed realloc keeps p
  return counted_live(q);
}
void free(void* p) noexcept {
  if (p) add_live(-std::int64_t(malloc_usable_size(p)));
  __libc_free(p);
}
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  count_one(size);
  return counted_live(__libc_memalign(alignment, size));
}
void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept {
  count_one(size);
  return counted_live(__libc_memalign(alignment, size));
}
int posix_memalign(void** out, std::size_t alignment, std::size_t size) noexcept {
  count_one(size);
  void* p = counted_live(__libc_memalign(alignment, size));
  if (!p) return 12;  // ENOMEM
  *out = p;
  return 0;
}
}  // extern "C"
#endif

namespace {

using nlohmann::json;
namespace sim = dlsim::sim;

std::uint64_t allocations() {
  return allocation_count.load(std::memory_order_relaxed);
}

/// Allocations and messages between two instants of one run.
struct Window {
  std::int64_t allocations = 0;
  std::int64_t messages = 0;
};

/// Runs a scenario as sim::run does (run.cpp: engine, network, compute model, recorder,
/// the algorithm's processes), but with no metrics writer, and stops the clock at the
/// given fractions of the simulated time `total` (0: run to the end and return nothing):
/// the allocations and messages between consecutive stops. A run with no file output has
/// no formatting whose allocations depend on the numbers printed.
std::vector<Window> run_windows(const json& doc, const std::vector<double>& fractions,
                                sim::SimTime* total) {
  sim::PreparedRun p = sim::prepare(sim::load_scenario(doc));
  const sim::Scenario& s = p.scenario;
  sim::Engine engine;
  sim::Network network(
      engine,
      sim::NetworkConfig(sim::node_count(s), s.network.latency, s.network.bandwidth,
                         s.network.sharing == "fifo" ? sim::Sharing::fifo : sim::Sharing::fair,
                         s.network.header));
  sim::ComputeModel compute(s.compute.speed, s.compute.per_worker, s.compute.jitter, s.seed,
                            sim::node_count(s));
  const dlsim::models::Dataset* train = p.data ? &p.data->train : nullptr;
  sim::Evaluator evaluator(*p.objective, p.data ? &p.data->loss_set() : nullptr, nullptr,
                           s.decentralized());
  sim::RecorderPlan plan{sim::model_holders(s), p.max_iterations, p.samples_per_iteration,
                         p.train_samples,       s.metrics,        s.stop};
  sim::Recorder recorder(engine, network, evaluator, plan, {}, std::chrono::steady_clock::now());
  sim::WallAccount wall;
  auto init_rng = sim::make_rng(s.seed, "init");
  sim::Training training{s,  *p.objective, train, p.shards, p.objective->initial_point(init_rng),
                         {}, recorder,     wall};
  for (int i = 0; i < sim::node_count(s); ++i)
    training.nodes.emplace_back(i, engine, network, compute);
  recorder.start(training.initial_models(plan.holders));
  sim::launch_algorithm(engine, training);

  std::vector<Window> windows;
  std::uint64_t last_allocations = allocations(), last_messages = 0;
  for (std::size_t i = 0; i < fractions.size(); ++i) {
    engine.run(sim::SimTime::from_ps(std::int64_t(double(total->ps) * fractions[i])));
    const std::uint64_t now_allocations = allocations();  // nothing allocated in between
    const std::uint64_t now_messages = network.counters().messages;
    if (i > 0)
      windows.push_back({std::int64_t(now_allocations - last_allocations),
                         std::int64_t(now_messages - last_messages)});
    last_allocations = allocations();
    last_messages = now_messages;
  }
  if (fractions.empty()) {
    engine.run();
    *total = engine.now();
  }
  return windows;
}

/// Allocations and messages in two windows of a fifth of the run each, after the first
/// half: pools, queues and scratch buffers have grown to their high-water marks (with
/// fifo sharing the nodes of a ring drift apart for a while, and mailboxes grow).
std::vector<Window> steady_windows(const json& doc) {
  sim::SimTime total{};
  run_windows(doc, {}, &total);
  return run_windows(doc, {0.5, 0.7, 0.9}, &total);
}

json gossip_ring(int workers, const std::string& sharing) {
  return {{"seed", 1},
          {"workers", workers},
          {"model", {{"kind", "profile"}, {"parameters", 1000}, {"compute_time", "1ms"}}},
          {"algorithm",
           {{"kind", "choco-gossip"}, {"consensus_step", 1.0}, {"compressor", {{"kind", "none"}}}}},
          {"topology", {{"kind", "ring"}, {"weights", "metropolis"}}},
          {"network",
           {{"latency", "5us"}, {"bandwidth", "10Gbps"}, {"sharing", sharing}, {"header", "64B"}}},
          {"stop", {{"iterations", 160}}},
          {"metrics", {{"every", {{"iterations", 1000000}}}}}};
}

json least_squares(int workers, json algorithm) {
  return {{"seed", 5},
          {"workers", workers},
          {"data",
           {{"source", "synthetic-regression"},
            {"samples", 800},
            {"features", 8},
            {"noise", 0.0},
            {"condition", 2}}},
          {"model", {{"kind", "least-squares"}}},
          {"algorithm", algorithm},
          {"network", {{"header", "40B"}}},
          {"stop", {{"iterations", 80}}},
          {"metrics", {{"every", {{"iterations", 1000000}}}}}};
}

}  // namespace

TEST_CASE("the allocation counter sees operator new, shared_ptr and Eigen") {
  if (!DLSIM_COUNT_ALLOCATIONS) {
    WARN("allocation counting is off in this build (sanitizers)");
    return;
  }
  const std::uint64_t a = allocations();
  auto p = std::make_unique<int>(3);
  const std::uint64_t b = allocations();
  auto q = std::make_shared<std::vector<int>>(10, 1);
  const std::uint64_t c = allocations();
  Eigen::VectorXd v = Eigen::VectorXd::Ones(100);
  const std::uint64_t d = allocations();
  CHECK(b - a == 1);
  CHECK(c - b == 2);  // control block + object, then the vector's storage
  CHECK(d - c == 1);
  CHECK(*p + (*q)[0] + int(v.sum()) == 104);
}

TEST_CASE("ring gossip without math: no allocation per message in steady state") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  for (const int workers : {32, 64}) {
    INFO("fair sharing, " << workers << " workers");
    for (const Window& w : steady_windows(gossip_ring(workers, "fair"))) {
      INFO(w.messages << " messages, " << w.allocations << " allocations");
      CHECK(w.messages >= 2 * workers * 20);  // ~32 rounds of 2 messages per worker
      CHECK(w.allocations == 0);
    }
  }
  // With fifo sharing the ring's nodes keep drifting apart for a while, so a mailbox or
  // port queue occasionally reaches a new high-water mark and doubles its capacity: at
  // most one such growth per window here, against thousands of messages.
  for (const int workers : {32, 64}) {
    INFO("fifo sharing, " << workers << " workers");
    for (const Window& w : steady_windows(gossip_ring(workers, "fifo"))) {
      INFO(w.messages << " messages, " << w.allocations << " allocations");
      CHECK(w.messages >= 2 * workers * 20);
      CHECK(w.allocations <= 1);
    }
  }
}

TEST_CASE("CHOCO-SGD with top-k on least squares: no allocation per message") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  const json choco = {{"kind", "choco-sgd"},
                      {"step_size", 0.05},
                      {"batch_size", 20},
                      {"consensus_step", 0.3},
                      {"compressor", {{"kind", "top-k"}, {"ratio", 0.5}}}};
  for (const int workers : {4, 8}) {
    INFO(workers << " workers");
    for (const Window& w : steady_windows(least_squares(workers, choco))) {
      INFO(w.messages << " messages, " << w.allocations << " allocations");
      CHECK(w.messages >= 2 * workers * 10);  // ~16 iterations
      CHECK(w.allocations == 0);
    }
  }
}

// 2 messages per worker per iteration; the server averages the gradients in place
// (sgd_parameter_server.cpp), so nothing allocates per iteration either.
TEST_CASE("parameter-server SGD with qsgd on least squares: no allocation per message") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  const json ps_sgd = {{"kind", "sgd"},
                       {"collective", "parameter-server"},
                       {"step_size", 0.1},
                       {"batch_size", 20},
                       {"compressor", {{"kind", "qsgd"}, {"levels", 3}}}};
  for (const int workers : {4, 8}) {
    INFO(workers << " workers");
    for (const Window& w : steady_windows(least_squares(workers, ps_sgd))) {
      INFO(w.messages << " messages, " << w.allocations << " allocations");
      const std::int64_t iterations = w.messages / (2 * workers);
      CHECK(w.messages == 2 * workers * iterations);
      CHECK(iterations >= 10);
      CHECK(w.allocations == 0);
    }
  }
}

// One synchronous ring round straight on the network, as a million-worker gossip round
// starts: node i sends 32,000 bits to i + 1 and i − 1 at time 0, 2n flows at once.
struct RingRound {
  std::uint64_t big_allocations = 0;  // of 64 KiB or more, from the first start to the end
  dlsim::sim::SimTime end;
  std::size_t arrived = 0;
};

RingRound ring_round(int n, bool reserve) {
  sim::Engine engine;
  sim::Network network(
      engine, sim::NetworkConfig(n, sim::SimTime::from_seconds(5e-6), 10e9, sim::Sharing::fair, 0));
  if (reserve) network.reserve_transfers(2 * std::size_t(n));
  auto payload = std::make_shared<dlsim::models::Encoded>();
  payload->bits = 32000;
  big_allocation_size = std::size_t(64) << 10;
  const std::uint64_t before = big_allocation_count.load();
  for (int i = 0; i < n; ++i) {
    network.start(sim::Message{i, (i + 1) % n, 0, payload}, nullptr);
    network.start(sim::Message{i, (i + n - 1) % n, 0, payload}, nullptr);
  }
  engine.run();
  RingRound r;
  r.big_allocations = big_allocation_count.load() - before;
  big_allocation_size = SIZE_MAX;
  r.end = engine.now();
  for (int i = 0; i < n; ++i) r.arrived += network.mailbox(i).arrived();
  return r;
}

// Network::reserve_transfers sizes the tables indexed by transfer id (the network's slots,
// the fair-sharing solver's flows) before a round: they then do not grow by doubling while
// 2n flows start. Capacity only: the round is the same.
TEST_CASE("a network reserved for a round's transfers does not regrow its tables in it") {
  const int n = 16384;
  const RingRound plain = ring_round(n, false);
  const RingRound reserved = ring_round(n, true);
  // Each port carries two flows at 5 Gbit/s: 6.4 µs of transmission, then 5 µs of latency.
  for (const RingRound* r : {&plain, &reserved}) {
    CHECK(r->arrived == 2 * std::size_t(n));
    CHECK(r->end == dlsim::sim::SimTime::from_ps(11'400'000));
  }
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  INFO(plain.big_allocations << " large allocations without reserving, " << reserved.big_allocations
                             << " with");
  // Without, each of the six tables indexed by transfer id (2n entries of 4 to 80 bytes:
  // the network's slots and free list, the solver's flows, routes, stamps and component
  // index) passes 64 KiB and doubles at least once more (52 allocations of 64 KiB or more
  // against 34, when written).
  CHECK(plain.big_allocations >= reserved.big_allocations + 2 * 6);
}

// D-PSGD on a ring as in the 1 M-worker benchmark (bench/scenarios/gossip-ring-1m-profile.json).
json dpsgd_profile_ring(int workers) {
  return {{"seed", 1},
          {"workers", workers},
          {"model", {{"kind", "profile"}, {"parameters", 1000}, {"compute_time", "1ms"}}},
          {"algorithm", {{"kind", "dpsgd"}}},
          {"topology", {{"kind", "ring"}, {"weights", "metropolis"}}},
          {"network", {{"latency", "5us"}, {"bandwidth", "10Gbps"}, {"sharing", "fair"}}},
          {"stop", {{"iterations", 10}}},
          {"metrics", {{"every", {{"iterations", 10}}}, {"test", false}}}};
}

// Peak heap bytes of a whole run (scenario, graph, engine, network, processes) above what
// was live before it. Freed coroutine frames stay in their thread's cache until the thread
// ends (task.hpp), and the last graph built stays cached (topology_build.hpp): the run gets
// a thread of its own, and a 4-worker ring's graph replaces the last one first, so that no
// run starts with memory another left.
std::int64_t peak_heap_of_run(const json& doc) {
  dlsim::sim::shared_topology(dlsim::sim::load_scenario(dpsgd_profile_ring(4)));
  const std::int64_t before = live_bytes.load();
  peak_bytes = before;
  std::exception_ptr error;
  std::thread([&] {
    try {
      dlsim::sim::SimTime total{};
      run_windows(doc, {}, &total);
    } catch (...) {
      error = std::current_exception();
    }
  }).join();
  if (error) std::rethrow_exception(error);
  return peak_bytes.load() - before;
}

// A profile model of 40 tensors, CHOCO-SGD with per-tensor lpc: each message stream's
// compressor chain has a slice per tensor.
json choco_layered_profile_ring(int workers) {
  json layers = json::array();
  for (int k = 0; k < 40; ++k) {
    // Appended, not `"t" + std::to_string(k)`: GCC 12 warns about that one (-Wrestrict, a
    // false positive of its inlined char_traits copy).
    std::string name = "t";
    name += std::to_string(k);
    layers.push_back({{"name", name}, {"parameters", 100}, {"flops", 1000}});
  }
  return {{"seed", 1},
          {"workers", workers},
          {"model", {{"kind", "profile"}, {"layers", layers}}},
          {"algorithm",
           {{"kind", "choco-sgd"},
            {"consensus_step", 0.5},
            {"compressor", {{"kind", "lpc"}, {"bits", 4}, {"per_tensor", true}}}}},
          {"topology", {{"kind", "ring"}, {"weights", "metropolis"}}},
          {"network", {{"latency", "5us"}, {"bandwidth", "10Gbps"}, {"sharing", "fair"}}},
          {"stop", {{"iterations", 3}}},
          {"metrics", {{"every", {{"iterations", 3}}}, {"test", false}}}};
}

// The same model over a parameter server with per-tensor lpc both ways (ALPC-SVRG): the
// workers also share the server's downlink decoder (ParameterServer's).
json alpc_layered_profile_server(int workers) {
  json doc = choco_layered_profile_ring(workers);
  const json lpc = {{"kind", "lpc"}, {"bits", 4}, {"per_tensor", true}};
  doc["algorithm"] = {{"kind", "alpc-svrg"},
                      {"collective", "parameter-server"},
                      {"epoch_length", 2},
                      {"compressor", lpc},
                      {"downlink_compressor", lpc}};
  doc.erase("topology");
  return doc;
}

// Peak heap per worker of a scenario, from its runs at 512 and 1,024 workers.
double heap_per_worker_512_to_1024(json (*scenario)(int workers)) {
  const std::int64_t small = peak_heap_of_run(scenario(512));
  const std::int64_t large = peak_heap_of_run(scenario(1024));
  const double per_worker = double(large - small) / 512;
  UNSCOPED_INFO("peak heap " << small << " B at 512 workers, " << large
                             << " B at 1,024: " << per_worker << " B per worker");
  return per_worker;
}

// Issue 18: bytes per simulated worker. The 1 M-worker benchmark's scenario at 4,096 and
// 8,192 workers: the difference of the two runs' heap peaks is what 4,096 more workers
// hold, every table doubling along. Counted in usable bytes: 2,348 per worker when written,
// 2,284 since the events lost their sequence number and the workers share their decoder
// (heaptrack, in requested bytes: README "Where the bytes go"), 2,118 since a profile
// model's messages are the process's shared sized payloads (no stream record, pool or
// buffer per worker). The count is exact, so the budget is tight (1.5 % above): a change
// that adds 32 bytes to every worker (an event pending twice, a frame class, a payload
// buffer per sender again) fails it; raise it knowingly, within the 4 KB.
TEST_CASE("a D-PSGD worker on a ring holds at most 2150 bytes of heap") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  const std::int64_t small = peak_heap_of_run(dpsgd_profile_ring(4096));
  const std::int64_t large = peak_heap_of_run(dpsgd_profile_ring(8192));
  const double per_worker = double(large - small) / 4096;
  INFO("peak heap " << small << " B at 4,096 workers, " << large << " B at 8,192: " << per_worker
                    << " B per worker");
  // A count that misses part of a run reads far less: with the first run's frames reused
  // from the cache (no thread of its own) it read 1,128 bytes.
  CHECK(per_worker >= 2000);
  CHECK(per_worker <= 2150);
}

// Decoding keeps no state, so every worker shares one decoder chain (Training::decoder()):
// with 40 per-tensor slices a chain per worker costs about 11 KB. Measured: 2,590 bytes per
// worker shared, 13,491 with a chain each (the workers' own chains, as before).
TEST_CASE("workers share one decoder chain: per-tensor compression costs no chain per worker") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  const double per_worker = heap_per_worker_512_to_1024(choco_layered_profile_ring);
  CHECK(per_worker >= 2000);  // a count that misses the run reads far less
  CHECK(per_worker <= 3000);
}

// Measured: 2,126 bytes per worker shared, 13,014 with a downlink decoder each (as before:
// 40 lpc slices of about 200 bytes, and the chain's own tables).
TEST_CASE("workers share the parameter server's downlink decoder: no chain per worker") {
  if (!DLSIM_COUNT_ALLOCATIONS) return;
  const double per_worker = heap_per_worker_512_to_1024(alpc_layered_profile_server);
  CHECK(per_worker >= 1500);  // a count that misses the run reads far less
  CHECK(per_worker <= 3000);
}
