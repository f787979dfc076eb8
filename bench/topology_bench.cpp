// Time to build a topology and compute every fact `dlsim topology` prints (degrees,
// diameter, connectivity, λ2, λmin, gap) for ring, torus (√n × √n, nearest square
// factorisation) and random-regular (degree 4) graphs at n = 1k, 10k, 100k.
//   build/bin/topology_bench --benchmark_counters_tabular=true
// Counters: edges, diameter (-1 = not computed, see analysis.hpp), spectral_gap.
#include <benchmark/benchmark.h>

#include <cmath>

#include "topologies/facts.hpp"
#include "topologies/registry.hpp"
#include "topologies/schedule.hpp"

namespace {

using dlsim::topo::GraphSchedule;
using dlsim::topo::TopologyParams;

TopologyParams params(const std::string& kind, int n) {
  nlohmann::json keys = {{"degree", 4}};
  if (kind == "torus") {
    std::int64_t a = std::int64_t(std::sqrt(double(n)));
    while (n % a != 0) --a;
    keys["dims"] = {a, n / a};
  }
  return dlsim::topo::topology_params(kind, n, keys, 7);
}

void build_and_describe(benchmark::State& state, const std::string& kind) {
  const TopologyParams p = params(kind, int(state.range(0)));
  dlsim::topo::TopologyFacts facts;
  for (auto _ : state) {
    facts = dlsim::topo::describe(GraphSchedule::make(p));
    benchmark::DoNotOptimize(facts);
  }
  state.counters["edges"] = double(facts.edges);
  state.counters["diameter"] = facts.diameter ? double(*facts.diameter) : -1.0;
  state.counters["spectral_gap"] = facts.spectrum.spectral_gap.value_or(-1.0);
}

void BM_Ring(benchmark::State& s) {
  build_and_describe(s, "ring");
}
void BM_Torus(benchmark::State& s) {
  build_and_describe(s, "torus");
}
void BM_RandomRegular(benchmark::State& s) {
  build_and_describe(s, "random-regular");
}

}  // namespace

BENCHMARK(BM_Ring)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Torus)->Arg(1'000)->Arg(10'000)->Arg(100'000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RandomRegular)
    ->Arg(1'000)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1);

BENCHMARK_MAIN();
