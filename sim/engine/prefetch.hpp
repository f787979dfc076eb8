// Prefetching what the engine touches next: a process's coroutine frame before the
// engine resumes it, and (prefetch_lines) any object a pass will reach soon. A million workers'
// frames do not fit in any cache, and the engine walks them in an order the hardware cannot
// guess (a resumption here, a compute job there, each touching a few lines far apart in
// its frame: the awaiter, the state object, the locals). The engine knows which frame
// comes a few steps ahead (the event queue's next events, the phase's next jobs) and asks
// for its lines while it works on the current one. A hint only: it changes no value and
// no order, and prefetching an address never faults.
#pragma once

#include <cstddef>
#include <cstdint>

namespace dlsim::sim {

inline constexpr std::size_t kCacheLine = 64;

/// Asks for every cache line that [start, start + bytes) touches (an object that is not
/// line-aligned may touch one line more than bytes / 64). `kForWriting`: a write
/// prefetch where the target has one (on the x86-64 baseline an ordinary prefetch).
template <bool kForWriting = false>
inline void prefetch_lines(const void* start, std::size_t bytes) {
  const auto begin = reinterpret_cast<std::uintptr_t>(start);
  for (std::uintptr_t line = begin & ~std::uintptr_t(kCacheLine - 1); line < begin + bytes;
       line += kCacheLine)
    __builtin_prefetch(reinterpret_cast<const void*>(line), kForWriting ? 1 : 0);
}

/// Lines prefetched from the start of a frame: a D-PSGD worker's frame (its state object
/// and awaiters) is 704 bytes, 11 lines; the exchange's 384 bytes.
inline constexpr std::size_t kFrameLinesPrefetched = 12;
/// How many events or jobs ahead the engine prefetches: far enough for a memory access
/// to complete (a few hundred nanoseconds of other events), near enough to stay in L1.
inline constexpr std::size_t kPrefetchAhead = 8;

inline void prefetch_frame(const void* frame) {
  prefetch_lines(frame, kFrameLinesPrefetched * kCacheLine);
}

}  // namespace dlsim::sim
