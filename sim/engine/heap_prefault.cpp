#include "sim/engine/heap_prefault.hpp"

#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <system_error>
#include <thread>

namespace dlsim::sim {

namespace {

#ifndef MADV_POPULATE_WRITE
constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14 (uapi/asm-generic/mman-common.h)
#endif

constexpr int kDefaultTopPad = 128 * 1024;  // mallopt(3): M_TOP_PAD's default
// One madvise call maps at most this much: between calls the populating thread lets go of
// the address space's lock, so the simulation's own brk() and faults do not wait long.
constexpr std::uintptr_t kChunk = 2 << 20;

struct State {
  std::mutex mutex;
  std::condition_variable work;  // to the populating thread: more to map, or stop
  std::condition_variable done;  // from it: a chunk was mapped
  std::thread populator;
  int users = 0;
  bool stop = false;
  bool joining = false;          // the last user is joining the thread: no new one yet
  bool refused = false;          // the kernel refused the advice once: stop asking
  std::uintptr_t requested = 0;  // the heap's end as of the last poll
  std::uintptr_t populated = 0;  // mapped up to here
  std::size_t populated_bytes = 0;
  std::deque<std::pair<std::uintptr_t, std::uintptr_t>> ranges;  // populate_range()'s, to map
};

State& state() {
  static State s;
  return s;
}

std::atomic<bool> g_active{false};

std::uintptr_t heap_end() {
  return reinterpret_cast<std::uintptr_t>(sbrk(0));
}

std::uintptr_t page_size() {
  static const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  return page;
}

// Bytes of the pages of [from, to) (page-aligned, at most kChunk) not resident yet: what
// the advice is about to map (the rest the simulation touched first).
std::size_t missing_bytes(std::uintptr_t from, std::uintptr_t to) {
  std::array<unsigned char, kChunk / 4096> resident{};
  const std::uintptr_t pages = (to - from + page_size() - 1) / page_size();
  if (pages > resident.size() ||
      mincore(reinterpret_cast<void*>(from), to - from, resident.data()) != 0)
    return to - from;
  std::size_t missing = 0;
  for (std::uintptr_t p = 0; p < pages; ++p) missing += (resident[p] & 1) ? 0 : 1;
  return missing * page_size();
}

// The populating thread: maps [populated, requested) chunk by chunk while the simulation
// goes on allocating from the front of it (a page it touches first is faulted as usual;
// the advice never changes a page that is already there).
void populate_forever(State& s) {
  std::unique_lock lock(s.mutex);
  const auto heap_behind = [&] { return !s.refused && s.populated < s.requested; };
  for (;;) {
    s.work.wait(lock, [&] { return s.stop || heap_behind() || !s.ranges.empty(); });
    if (s.stop) return;
    // The heap first: the simulation allocates from it right now. A queued range
    // (reserved capacity) is written later.
    const bool heap = heap_behind();
    const std::uintptr_t first = heap ? s.populated : s.ranges.front().first;
    const std::uintptr_t last = heap ? s.requested : s.ranges.front().second;
    const std::uintptr_t from = first & ~(page_size() - 1);
    const std::uintptr_t to = std::min(last, from + kChunk);
    lock.unlock();
    const std::size_t missing = missing_bytes(from, to);
    const int result = madvise(reinterpret_cast<void*>(from), to - from, MADV_POPULATE_WRITE);
    const int error = result == 0 ? 0 : errno;
    lock.lock();
    if (result == 0) s.populated_bytes += missing;
    if (s.stop) break;  // the ranges may be gone: the last user cleared them
    if (heap) {
      if (result != 0 && error != ENOMEM) {
        s.refused = true;  // an old kernel (EINVAL): fault as usual from now on
        g_active.store(false, std::memory_order_relaxed);
      }
      // ENOMEM: the heap was trimmed below `to` meanwhile (or memory ran out); what grows
      // back later is requested anew.
      s.populated = std::max(s.populated, std::min(to, s.requested));
    } else if (result != 0 || to >= s.ranges.front().second) {
      s.ranges.pop_front();  // done, or gone (freed meanwhile): nothing more to map there
    } else {
      s.ranges.front().first = to;
    }
    s.done.notify_all();
  }
  s.done.notify_all();
}

}  // namespace

HeapPrefault::HeapPrefault(std::size_t pad) {
  State& s = state();
  std::unique_lock lock(s.mutex);
  // A thread whose last user just ended may still be finishing its chunk: one thread at a
  // time, so wait until it is joined.
  s.done.wait(lock, [&] { return !s.joining; });
  if (s.users++ > 0) return;
  const std::size_t capped = std::min<std::size_t>(pad, std::size_t(1) << 30);
  mallopt(M_TOP_PAD, int(capped));
  s.populated = s.requested = heap_end();  // what is there already was touched as it came
  s.stop = false;
  if (!s.refused) {
    try {
      s.populator = std::thread(populate_forever, std::ref(s));
    } catch (const std::system_error&) {
      s.refused = true;  // no thread to spare: fault as usual
    }
  }
  g_active.store(!s.refused, std::memory_order_relaxed);
}

HeapPrefault::~HeapPrefault() {
  State& s = state();
  std::thread populator;
  {
    const std::lock_guard lock(s.mutex);
    if (--s.users > 0) return;
    g_active.store(false, std::memory_order_relaxed);
    mallopt(M_TOP_PAD, kDefaultTopPad);
    s.stop = true;
    s.ranges.clear();  // what the run did not reach is not mapped any more
    s.joining = true;
    populator = std::move(s.populator);
  }
  s.work.notify_all();
  if (populator.joinable()) populator.join();  // it ends after its current chunk at most
  {
    const std::lock_guard lock(s.mutex);
    s.joining = false;
  }
  s.done.notify_all();  // a HeapPrefault being made meanwhile may start its thread now
}

void HeapPrefault::poll() {
  if (!g_active.load(std::memory_order_relaxed)) return;
  State& s = state();
  {
    const std::lock_guard lock(s.mutex);
    if (s.users == 0 || s.refused) return;
    const std::uintptr_t end = heap_end();
    if (end < s.populated) s.populated = end;  // trimmed: what grows back is new
    s.requested = end;
    if (end == s.populated) return;
  }
  s.work.notify_one();
}

void HeapPrefault::populate_range(const void* data, std::size_t bytes) {
  if (!g_active.load(std::memory_order_relaxed) || bytes == 0) return;
  State& s = state();
  {
    const std::lock_guard lock(s.mutex);
    if (s.users == 0 || s.refused) return;
    const auto from = reinterpret_cast<std::uintptr_t>(data);
    s.ranges.emplace_back(from, from + bytes);
  }
  s.work.notify_one();
}

void HeapPrefault::settle() {
  State& s = state();
  std::unique_lock lock(s.mutex);
  s.done.wait(lock, [&] {
    return s.stop || s.refused || (s.populated >= s.requested && s.ranges.empty());
  });
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
