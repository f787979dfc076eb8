// Bulk population of the main heap (sim/engine/heap_prefault.hpp). The independent truth
// is the kernel's own page table: mincore(2) says which pages of the heap are resident. A
// page the program never wrote to is resident only if something populated it, so the
// stretch of a heap growth beyond the last allocation tells whether poll() ran.
//
// Under sanitizers (their allocators replace malloc and do not grow the heap with brk)
// there is nothing to populate and the checks are skipped.
#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <thread>
#include <utility>
#include <vector>

#include "sanitizer_build.hpp"
#include "sim/engine/engine.hpp"
#include "sim/engine/heap_prefault.hpp"

using namespace dlsim::sim;

namespace {

std::uintptr_t heap_end() {
  return reinterpret_cast<std::uintptr_t>(sbrk(0));
}

/// Pages of [from, to) that are not resident (mincore), from and to rounded to pages.
std::size_t missing_pages(std::uintptr_t from, std::uintptr_t to) {
  const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  from &= ~(page - 1);
  to = (to + page - 1) & ~(page - 1);
  std::vector<unsigned char> resident((to - from) / page);
  REQUIRE(mincore(reinterpret_cast<void*>(from), to - from, resident.data()) == 0);
  std::size_t missing = 0;
  for (unsigned char r : resident) missing += (r & 1) ? 0 : 1;
  return missing;
}

/// Small blocks, kept until the end, until the heap has grown past `by` bytes beyond
/// `start`; returns them (freed by the caller's unique_ptrs).
std::vector<std::unique_ptr<char[]>> grow_heap(std::uintptr_t start, std::size_t by, bool poll) {
  std::vector<std::unique_ptr<char[]>> blocks;
  blocks.reserve(1 << 20);
  for (int i = 0; i < (1 << 20) && heap_end() < start + by; ++i) {
    blocks.emplace_back(new char[600]);
    blocks.back()[0] = 1;  // touched, as a frame would be
    if (poll && (i & 255) == 255) HeapPrefault::poll();
  }
  if (poll) {
    HeapPrefault::poll();
    HeapPrefault::settle();  // the populating thread is done with what poll() handed it
  }
  return blocks;
}

struct Held {
  std::array<char, 2048> state{};  // a large coroutine frame's worth, kept across the wait
};

struct Yield {
  Engine& engine;
  bool await_ready() const noexcept { return false; }
  void await_suspend(std::coroutine_handle<> h) {
    engine.schedule_resume(engine.now() + SimTime::from_ps(1), h);
  }
  void await_resume() const noexcept {}
};

Task<void> holder(Engine& engine, long& sum) {
  Held held;
  held.state[7] = 1;
  co_await Yield{engine};
  sum += held.state[7];
}

}  // namespace

TEST_CASE("a live HeapPrefault populates every page the heap grows by", "[engine][memory]") {
  if (DLSIM_SANITIZED) {
    WARN("a sanitizer's allocator does not grow the heap with brk: nothing to check");
    return;
  }
  constexpr std::size_t pad = 8 << 20;
  HeapPrefault prefault(pad);
  REQUIRE(HeapPrefault::active());
  const std::size_t before = HeapPrefault::populated_bytes();
  const std::uintptr_t start = heap_end();
  const auto blocks = grow_heap(start, 2 * pad, true);
  const std::uintptr_t end = heap_end();
  REQUIRE(end >= start + 2 * pad);  // the heap grew with brk, a pad at a time
  // The blocks cover only part of the last pad; the rest was never written, yet resident,
  // and the populating thread counts it.
  CHECK(missing_pages(start, end) == 0);
  const std::size_t populated = HeapPrefault::populated_bytes() - before;
  const auto past_last_block = reinterpret_cast<std::uintptr_t>(blocks.back().get()) + 4096 + 600;
  REQUIRE(past_last_block < end);
  CHECK(populated >= end - past_last_block);
  CHECK(populated <= end - start);
}

TEST_CASE("without a live HeapPrefault the heap is faulted page by page", "[engine][memory]") {
  if (DLSIM_SANITIZED) {
    WARN("a sanitizer's allocator does not grow the heap with brk: nothing to check");
    return;
  }
  // The control of the case above: the same growth, with poll() called but nothing alive,
  // leaves the untouched end of the heap out of memory.
  CHECK_FALSE(HeapPrefault::active());
  const std::size_t before = HeapPrefault::populated_bytes();
  const std::uintptr_t start = heap_end();
  {
    HeapPrefault gone(64 << 20);  // its 64 MB pad must not outlive it:
  }                               // malloc's default pad is back
  const auto blocks = grow_heap(start, 1 << 20, true);
  const std::uintptr_t end = heap_end();
  REQUIRE(end > start);
  CHECK(end - start < (8 << 20));  // grown by what was asked, not a 64 MB pad
  CHECK(HeapPrefault::populated_bytes() == before);
  // Blocks of 600 bytes touch one byte each: every page holds a block, so all are
  // resident, but beyond the last block malloc's 128 KiB pad is not.
  CHECK(missing_pages(start, end) > 0);
}

TEST_CASE("HeapPrefault lifetimes nest", "[engine][memory]") {
  {
    HeapPrefault outer(4 << 20);
    {
      HeapPrefault inner(4 << 20);
      CHECK(HeapPrefault::active());
    }
    CHECK(HeapPrefault::active());
  }
  CHECK_FALSE(HeapPrefault::active());
}

TEST_CASE("the engine populates the heap while processes allocate", "[engine][memory]") {
  if (DLSIM_SANITIZED) {
    WARN("a sanitizer's allocator does not grow the heap with brk: nothing to check");
    return;
  }
  // 20,224 processes (79 x 256: spawn() polls at the last one) of 2 KB frames each:
  // about 40 MB, all allocated by spawn(). The frames write every page they occupy, so the
  // proof is the stretch beyond the last one, which nothing writes: resident all the same,
  // and counted as mapped by the populating thread.
  HeapPrefault prefault(4 << 20);
  const std::size_t before = HeapPrefault::populated_bytes();
  const std::uintptr_t start = heap_end();
  long sum = 0;
  {
    Engine engine;
    for (int i = 0; i < 20'224; ++i) engine.spawn(holder(engine, sum));
    HeapPrefault::settle();
    const std::uintptr_t peak = heap_end();
    REQUIRE(peak > start + (32 << 20));
    // A block of a size nothing else here has comes from the top of the heap: the front.
    const std::unique_ptr<char[]> front(new char[3000]);
    const std::uintptr_t untouched = reinterpret_cast<std::uintptr_t>(front.get()) + 4096 + 3000;
    if (untouched < peak) {  // else the block grew the heap itself (once in ~1,400 runs)
      CHECK(missing_pages(untouched, peak) == 0);
      CHECK(HeapPrefault::populated_bytes() - before >= peak - untouched);
    }
    CHECK(HeapPrefault::populated_bytes() - before <= peak - start);
    engine.run();
  }
  CHECK(sum == 20'224);
}

TEST_CASE("populate_capacity maps a reserved table only while a HeapPrefault lives",
          "[engine][memory]") {
  // Also under the sanitizers (their allocators map such a table with mmap as well): the
  // populating thread's work under ThreadSanitizer is the point there.
  // 64 MB of doubles: far above malloc's mmap threshold, so a mapping of its own whose
  // pages nothing has touched; reserve() writes none of them.
  constexpr std::size_t kCount = std::size_t(8) << 20;
  const auto range_of = [](const std::vector<double>& v) {
    const auto from = reinterpret_cast<std::uintptr_t>(v.data());
    return std::pair(from, from + v.capacity() * sizeof(double));
  };
  SECTION("with a live HeapPrefault every page of the capacity is resident") {
    HeapPrefault prefault(4 << 20);
    REQUIRE(HeapPrefault::active());
    const std::size_t before = HeapPrefault::populated_bytes();
    std::vector<double> table;
    table.reserve(kCount);
    table.push_back(1.0);  // what is in use already is left as it is
    HeapPrefault::populate_capacity(table);
    HeapPrefault::settle();
    const auto [from, to] = range_of(table);
    CHECK(missing_pages(from, to) == 0);
    CHECK(HeapPrefault::populated_bytes() - before >= (kCount - 1) * sizeof(double) - 4096);
    CHECK(table.front() == 1.0);
  }
  SECTION("without one the capacity stays unmapped") {
    REQUIRE_FALSE(HeapPrefault::active());
    std::vector<double> table;
    table.reserve(kCount);
    HeapPrefault::populate_capacity(table);
    HeapPrefault::settle();
    const auto [from, to] = range_of(table);
    CHECK(missing_pages(from, to) > (kCount * sizeof(double)) / 4096 / 2);
  }
}

TEST_CASE("a range freed before its turn is skipped", "[engine][memory]") {
  HeapPrefault prefault(4 << 20);
  {
    std::vector<double> gone;
    gone.reserve(std::size_t(8) << 20);  // a mapping of its own, unmapped again below
    HeapPrefault::populate_capacity(gone);
  }
  std::vector<double> kept;
  kept.reserve(std::size_t(1) << 20);
  HeapPrefault::populate_capacity(kept);
  HeapPrefault::settle();  // returns: the populating thread got past the unmapped range
  CHECK(HeapPrefault::active());
  const auto from = reinterpret_cast<std::uintptr_t>(kept.data());
  CHECK(missing_pages(from, from + kept.capacity() * sizeof(double)) == 0);
}

TEST_CASE("HeapPrefault lifetimes on two threads come and go without losing the populator",
          "[engine][memory]") {
  // Two runs side by side (a sweep's threads): lifetimes overlap, and one often ends just
  // as the other begins, while the populating thread is inside its advice. Each lifetime
  // must find a thread that maps what it hands over, and the last one must stop it.
  const auto lifetimes = [] {
    for (int i = 0; i < 40; ++i) {
      HeapPrefault prefault(1 << 20);
      std::vector<double> table;
      table.reserve(std::size_t(1) << 19);  // 4 MB: two of the thread's chunks
      HeapPrefault::populate_capacity(table);
      if (i % 4 == 0) HeapPrefault::settle();
    }
  };
  std::thread other(lifetimes);
  lifetimes();
  other.join();
  CHECK_FALSE(HeapPrefault::active());
  HeapPrefault::settle();  // returns: nothing is left to map
  // A new lifetime still gets a working thread.
  HeapPrefault prefault(1 << 20);
  std::vector<double> table;
  table.reserve(std::size_t(1) << 20);
  HeapPrefault::populate_capacity(table);
  HeapPrefault::settle();
  const auto from = reinterpret_cast<std::uintptr_t>(table.data());
  CHECK(missing_pages(from, from + table.capacity() * sizeof(double)) == 0);
}
