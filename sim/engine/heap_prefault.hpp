// Bulk page population of the main heap while a large run allocates (docs/design.md §6,
// "Heap pages in bulk").
//
// A million simulated nodes allocate about 2.4 GB in small pieces (coroutine frames,
// flows, payload buffers). Touched one 4 KiB page at a time, every page costs a page
// fault: 1.5 to 11 µs on the virtual machines dlsim is developed on, up to a third of such
// a run. While a HeapPrefault is alive, malloc grows its main heap `pad` bytes at a time
// (mallopt M_TOP_PAD), and poll() hands each new stretch to a thread of its own, which
// maps it with madvise(MADV_POPULATE_WRITE) (Linux 5.14 and later), 2 MiB per call: the
// kernel maps the pages in one call instead of one trap each, and it does so on the
// otherwise idle core while the simulation goes on allocating from the front of the
// stretch (a page the simulation reaches first is faulted as usual; the advice never
// changes a page that is already there).
//
// The pages are the ones the run would have touched anyway, plus at most one pad beyond the
// heap's last use: the peak resident set grows by at most `pad`. Values are untouched, so
// results are too. Where the heap is not grown with brk (another allocator, a sanitizer's),
// the kernel refuses the advice or no thread can be started, poll() does nothing. The
// Engine calls poll() every 256 spawns, events and jobs; the allocator is the process's,
// so this state is too (the one global state of the engine layer), shared by all engines
// under a mutex.
#pragma once

#include <cstddef>

namespace dlsim::sim {

class HeapPrefault {
 public:
  /// Starts populating (nested lifetimes: the first sets the pad and starts the
  /// populating thread, the last restores malloc's default of 128 KiB and joins it).
  explicit HeapPrefault(std::size_t pad);
  ~HeapPrefault();
  HeapPrefault(const HeapPrefault&) = delete;
  HeapPrefault& operator=(const HeapPrefault&) = delete;

  /// Has whatever the main heap grew by since the last call populated, on the populating
  /// thread (returns at once). One relaxed atomic load when no HeapPrefault is alive;
  /// otherwise a lock and a read of the heap's end.
  static void poll();
  /// Has [data, data + bytes) populated on the populating thread once the heap's growth
  /// is (returns at once; nothing when no HeapPrefault is alive): for private memory
  /// reserved ahead of its first writes, such as the tables a round fills. Memory freed
  /// meanwhile is skipped.
  static void populate_range(const void* data, std::size_t bytes);
  /// populate_range() of a vector's capacity beyond its size.
  template <class Vector>
  static void populate_capacity(const Vector& v) {
    populate_range(v.data() + v.size(), (v.capacity() - v.size()) * sizeof(*v.data()));
  }
  /// Waits until everything poll() and populate_range() handed over is populated (for
  /// tests).
  static void settle();
  /// Bytes the populating thread mapped since the process started: pages found not
  /// resident just before its advice (a counter for tests, summary.json and --profile).
  static std::size_t populated_bytes();
  /// Whether a HeapPrefault is alive and the kernel has taken the advice so far.
  static bool active();
};

}  // namespace dlsim::sim
