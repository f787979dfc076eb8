// The classic hold model (as in ns-3's scheduler benchmarks): keep N events pending;
// each step pops the earliest and schedules a new one a random delay later. Compares
// the dlsim engine (heap of 32-byte records + dispatch) with a bare
// std::priority_queue of the same PODs. Target (issue 2): within 2x.
//   build/bin/engine_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <queue>
#include <random>
#include <vector>

#include "sim/engine/engine.hpp"

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

}  // namespace

BENCHMARK(BM_EngineHold)->Arg(100)->Arg(10'000)->Arg(1'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PriorityQueueHold)
    ->Arg(100)
    ->Arg(10'000)
    ->Arg(1'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
