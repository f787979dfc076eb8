// First touch of fresh anonymous memory, three ways (README "Performance", heap pages in
// bulk): page by page (mode 0); after madvise(MADV_POPULATE_WRITE) (mode 1, what
// sim/engine/heap_prefault.hpp does); after MADV_HUGEPAGE and the same advice (mode 2).
// Each iteration maps 256 MiB, advises, then writes one byte per 4 KiB page; `advice_s`
// and `touch_s` split the time. On a guest with shadow page tables (PVM, the development
// VM) populating leaves most of the cost at the first user write, and only huge pages
// remove it.
#include <sys/mman.h>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstddef>
#include <cstdint>

namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

constexpr std::size_t kBytes = std::size_t(256) << 20;
constexpr std::size_t kHugePage = std::size_t(2) << 20;
constexpr std::size_t kPage = 4096;

double seconds_between(std::chrono::steady_clock::time_point a,
                       std::chrono::steady_clock::time_point b) {
  return std::chrono::duration<double>(b - a).count();
}

void FirstTouch(benchmark::State& state) {
  const int mode = int(state.range(0));
  double advice = 0, touch = 0;
  for (auto _ : state) {
    void* raw = mmap(nullptr, kBytes + kHugePage, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED) {
      state.SkipWithError("mmap failed");
      break;
    }
    // Aligned to 2 MiB, so that every huge page of mode 2 lies inside the mapping.
    const auto aligned = (reinterpret_cast<std::uintptr_t>(raw) + kHugePage - 1) & ~(kHugePage - 1);
    char* p = reinterpret_cast<char*>(aligned);
    const auto t0 = std::chrono::steady_clock::now();
    if (mode == 2) madvise(p, kBytes, MADV_HUGEPAGE);
    if (mode >= 1 && madvise(p, kBytes, MADV_POPULATE_WRITE) != 0) {
      munmap(raw, kBytes + kHugePage);
      state.SkipWithError("MADV_POPULATE_WRITE refused (Linux older than 5.14?)");
      break;
    }
    const auto t1 = std::chrono::steady_clock::now();
    for (std::size_t i = 0; i < kBytes; i += kPage) p[i] = 1;
    benchmark::ClobberMemory();
    const auto t2 = std::chrono::steady_clock::now();
    advice += seconds_between(t0, t1);
    touch += seconds_between(t1, t2);
    state.SetIterationTime(seconds_between(t0, t2));
    munmap(raw, kBytes + kHugePage);
  }
  state.counters["advice_s"] = benchmark::Counter(advice, benchmark::Counter::kAvgIterations);
  state.counters["touch_s"] = benchmark::Counter(touch, benchmark::Counter::kAvgIterations);
  state.SetBytesProcessed(std::int64_t(state.iterations()) * std::int64_t(kBytes));
}

BENCHMARK(FirstTouch)
    ->ArgName("mode")
    ->Arg(0)
    ->Arg(1)
    ->Arg(2)
    ->UseManualTime()
    ->Iterations(4)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
