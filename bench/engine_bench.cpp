// The classic hold model (as in ns-3's scheduler benchmarks): keep N events pending;
// each step pops the earliest and schedules a new one a random delay later. Compares
// the dlsim engine (radix heap of 32-byte records + dispatch) with a bare
// std::priority_queue (binary heap) of the same PODs. Target (issue 2): within 2x. Plus the
// fair-sharing solver under churn (incremental versus full recomputation).
//   build/bin/engine_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <queue>
#include <random>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/network/fair_sharing.hpp"

namespace {

using dlsim::sim::Engine;
using dlsim::sim::SimTime;

std::vector<std::int64_t> delays(std::size_t count) {
  std::mt19937_64 rng(42);
  std::exponential_distribution<double> exp(1.0);
  std::vector<std::int64_t> d(count);
  for (auto& x : d) x = std::int64_t(1 + exp(rng) * 1e6);
  return d;
}

class Hold final : public dlsim::sim::EventHandler {
 public:
  Hold(Engine& e, const std::vector<std::int64_t>& d, std::int64_t budget)
      : engine_(e), delays_(d), budget_(budget) {}
  void on_event(std::uint64_t) override {
    if (--budget_ <= 0) return engine_.stop();
    engine_.schedule(engine_.now() + SimTime::from_ps(delays_[next_++ % delays_.size()]), this, 0);
  }

 private:
  Engine& engine_;
  const std::vector<std::int64_t>& delays_;
  std::int64_t budget_;
  std::size_t next_ = 0;
};

constexpr std::int64_t kSteps = 1'000'000;

void BM_EngineHold(benchmark::State& state) {
  const auto pending = state.range(0);
  const auto d = delays(1 << 16);
  for (auto _ : state) {
    state.PauseTiming();
    Engine engine;
    Hold hold(engine, d, kSteps);
    for (std::int64_t i = 0; i < pending; ++i)
      engine.schedule(SimTime::from_ps(d[std::size_t(i) % d.size()]), &hold, 0);
    state.ResumeTiming();
    engine.run();
    benchmark::DoNotOptimize(engine.events_processed());
  }
  state.counters["events_per_s"] =
      benchmark::Counter(double(kSteps) * double(state.iterations()), benchmark::Counter::kIsRate);
}

struct Pod {
  std::int64_t time;
  std::uint64_t seq;
  void* handler;
  std::uint64_t arg;
  bool operator>(const Pod& o) const { return time != o.time ? time > o.time : seq > o.seq; }
};

void BM_PriorityQueueHold(benchmark::State& state) {
  const auto pending = state.range(0);
  const auto d = delays(1 << 16);
  for (auto _ : state) {
    state.PauseTiming();
    std::priority_queue<Pod, std::vector<Pod>, std::greater<Pod>> q;
    std::uint64_t seq = 0;
    for (std::int64_t i = 0; i < pending; ++i)
      q.push(Pod{d[std::size_t(i) % d.size()], seq++, nullptr, 0});
    std::size_t next = 0;
    state.ResumeTiming();
    for (std::int64_t step = 0; step < kSteps; ++step) {
      Pod e = q.top();
      q.pop();
      q.push(Pod{e.time + d[next++ % d.size()], seq++, nullptr, 0});
    }
    benchmark::DoNotOptimize(q.top());
  }
  state.counters["events_per_s"] =
      benchmark::Counter(double(kSteps) * double(state.iterations()), benchmark::Counter::kIsRate);
}

// The network's hold model: `flows` transfers always in flight under fair sharing
// between random port pairs of 1024 nodes; each end starts a new transfer. Counts
// transfers per second for the incremental max-min solver and for the reference that
// re-solves every component at every change.
class Churn final : public dlsim::sim::TransferSink {
 public:
  Churn(Engine& e, dlsim::sim::FairSharing*& s, int nodes, std::int64_t budget)
      : engine_(e), sharing_(s), nodes_(nodes), budget_(budget) {}
  void start(dlsim::sim::TransferId id) {
    const int a = int(rng_() % nodes_);
    const int b = (a + 1 + int(rng_() % (nodes_ - 1))) % nodes_;
    sharing_->add(id, a, b, double(1000 + rng_() % 100'000));
  }
  void transmitted(dlsim::sim::TransferId id) override {
    if (--budget_ <= 0) return engine_.stop();
    start(id);
  }

 private:
  Engine& engine_;
  dlsim::sim::FairSharing*& sharing_;
  int nodes_;
  std::int64_t budget_;
  std::mt19937_64 rng_{7};
};

void BM_FairSharingChurn(benchmark::State& state) {
  const auto flows = state.range(0);
  const auto mode = state.range(1) ? dlsim::sim::FairSharing::Recompute::full
                                   : dlsim::sim::FairSharing::Recompute::incremental;
  const std::int64_t transfers = 20'000;
  for (auto _ : state) {
    Engine engine;
    dlsim::sim::NetworkConfig config(1024, SimTime::from_ps(1000), 10e9, dlsim::sim::Sharing::fair,
                                     0);
    dlsim::sim::FairSharing* sharing = nullptr;
    Churn churn(engine, sharing, 1024, transfers);
    dlsim::sim::FairSharing solver(engine, config, churn, mode);
    sharing = &solver;
    for (std::int64_t i = 0; i < flows; ++i) churn.start(dlsim::sim::TransferId(i));
    engine.run();
  }
  state.counters["transfers_per_s"] = benchmark::Counter(
      double(transfers) * double(state.iterations()), benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(BM_FairSharingChurn)
    ->Args({16, 0})
    ->Args({16, 1})
    ->Args({256, 0})
    ->Args({256, 1})
    ->Args({2048, 0})
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_EngineHold)->Arg(100)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PriorityQueueHold)
    ->Arg(100)
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
