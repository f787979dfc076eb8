// Bulk page population of the main heap while a large run allocates (docs/design.md §6,
// "Heap pages in bulk").
//
// A million simulated nodes allocate about 3 GB in small pieces (coroutine frames, flows,
// payload buffers). Touched one 4 KiB page at a time, every page costs a page fault: 1.5 to
// 11 µs on the virtual machines dlsim is developed on, up to a third of such a run. While a
// HeapPrefault is alive, malloc grows its main heap `pad` bytes at a time (mallopt
// M_TOP_PAD), and poll() populates each new stretch with one
// madvise(MADV_POPULATE_WRITE) (Linux 5.14 and later) before the allocator hands it out:
// the kernel maps the pages in one call instead of one trap each (on the development VM,
// 1 GiB in 1.6 s instead of 3.0 s).
//
// The pages are the ones the run would have touched anyway, plus at most one pad beyond the
// heap's last use: the peak resident set grows by at most `pad`. Values are untouched, so
// results are too. Where the heap is not grown with brk (another allocator, a sanitizer's)
// or the kernel refuses the advice, poll() does nothing. The Engine calls poll() every 256
// spawns, events and jobs; the allocator is the process's, so this state is too (the one
// global state of the engine layer), shared by all engines under a mutex.
#pragma once

#include <cstddef>

namespace dlsim::sim {

class HeapPrefault {
 public:
  /// Starts populating (nested lifetimes: the first sets the pad, the last restores
  /// malloc's default of 128 KiB).
  explicit HeapPrefault(std::size_t pad);
  ~HeapPrefault();
  HeapPrefault(const HeapPrefault&) = delete;
  HeapPrefault& operator=(const HeapPrefault&) = delete;

  /// Populates whatever the main heap grew by since the last call. One relaxed atomic
  /// load when no HeapPrefault is alive; otherwise a lock and a read of the heap's end.
  static void poll();
  /// Bytes populated by poll() since the process started (a counter for tests and
  /// --profile; pages already present are counted too).
  static std::size_t populated_bytes();
  /// Whether a HeapPrefault is alive and the kernel has taken the advice so far.
  static bool active();
};

}  // namespace dlsim::sim
