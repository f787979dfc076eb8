// Prefetching a process's coroutine frame before the engine touches it. A million workers'
// frames do not fit in any cache, and the engine walks them in an order the hardware cannot
// guess (a resumption here, a compute job there, each touching a few lines far apart in
// its frame: the awaiter, the state object, the locals). The engine knows which frame
// comes a few steps ahead (the event queue's next events, the phase's next jobs) and asks
// for its lines while it works on the current one. A hint only: it changes no value and
// no order, and prefetching an address never faults.
#pragma once

#include <cstddef>

namespace dlsim::sim {

/// Lines prefetched from the start of a frame: a D-PSGD worker's frame (its state object
/// and awaiters) is 704 bytes, 11 lines; the exchange's 384 bytes.
inline constexpr std::size_t kFrameLinesPrefetched = 12;
/// How many events or jobs ahead the engine prefetches: far enough for a memory access
/// to complete (a few hundred nanoseconds of other events), near enough to stay in L1.
inline constexpr std::size_t kPrefetchAhead = 8;

inline void prefetch_frame(const void* frame) {
  const char* p = static_cast<const char*>(frame);
  for (std::size_t line = 0; line < kFrameLinesPrefetched; ++line)
    __builtin_prefetch(p + 64 * line);
}

}  // namespace dlsim::sim
