#include "sim/engine/heap_prefault.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <mutex>

namespace dlsim::sim {

namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

constexpr int kDefaultTopPad = 128 * 1024;  // mallopt(3): M_TOP_PAD's default

struct State {
  std::mutex mutex;
  int users = 0;
  bool refused = false;          // the kernel refused the advice once: stop asking
  std::uintptr_t populated = 0;  // the heap's end as of the last poll
  std::size_t populated_bytes = 0;
};

State& state() {
  static State s;
  return s;
}

std::atomic<bool> g_active{false};

std::uintptr_t heap_end() {
  return reinterpret_cast<std::uintptr_t>(sbrk(0));
}

}  // namespace

HeapPrefault::HeapPrefault(std::size_t pad) {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  if (s.users++ > 0) return;
  const std::size_t capped = std::min<std::size_t>(pad, std::size_t(1) << 30);
  mallopt(M_TOP_PAD, int(capped));
  s.populated = heap_end();  // what is there already was touched as it came
  g_active.store(!s.refused, std::memory_order_relaxed);
}

HeapPrefault::~HeapPrefault() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  if (--s.users > 0) return;
  g_active.store(false, std::memory_order_relaxed);
  mallopt(M_TOP_PAD, kDefaultTopPad);
}

void HeapPrefault::poll() {
  if (!g_active.load(std::memory_order_relaxed)) return;
  State& s = state();
  const std::lock_guard lock(s.mutex);
  if (s.users == 0 || s.refused) return;
  const std::uintptr_t end = heap_end();
  if (end < s.populated) s.populated = end;  // trimmed: what grows back is new
  if (end == s.populated) return;
  const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t from = s.populated & ~(page - 1);
  if (madvise(reinterpret_cast<void*>(from), end - from, MADV_POPULATE_WRITE) != 0) {
    s.refused = true;  // an old kernel (EINVAL) or no memory left: fault as usual
    g_active.store(false, std::memory_order_relaxed);
    return;
  }
  s.populated_bytes += end - from;
  s.populated = end;
}

std::size_t HeapPrefault::populated_bytes() {
  State& s = state();
  const std::lock_guard lock(s.mutex);
  return s.populated_bytes;
}

bool HeapPrefault::active() {
  return g_active.load(std::memory_order_relaxed);
}

}  // namespace dlsim::sim
