// The radix-heap event queue against a reference: a sorted multiset of (time, sequence)
// pairs, the sequence number travelling in the event's `arg`. Random workloads mix pushes at the
// current time, near it and far away, with peeks (next_time) between them, as the engine does
// between instants, and look-aheads (look_ahead) before pops.
#include <catch2/catch.hpp>

#include <cstdint>
#include <iterator>
#include <random>
#include <set>
#include <utility>

#include "sim/engine/event_queue.hpp"

using dlsim::sim::Event;
using dlsim::sim::EventQueue;
using dlsim::sim::SimTime;

namespace {

// Runs `steps` random operations on the queue and on the reference; every pop must
// return the reference's first element, every peek its time.
void check_against_reference(std::uint64_t seed, int steps, std::int64_t spread) {
  std::mt19937_64 rng(seed);
  EventQueue queue;
  std::set<std::pair<std::int64_t, std::uint64_t>> reference;
  std::int64_t now = 0;
  std::uint64_t seq = 0;
  std::uint64_t peeked = 0;
  for (int step = 0; step < steps; ++step) {
    const auto choice = rng() % 10;
    if (choice < 5 || reference.empty()) {
      // At the current instant, a little later, or much later (up to `spread`).
      const auto kind = rng() % 3;
      const std::int64_t delay = kind == 0   ? 0
                                 : kind == 1 ? std::int64_t(rng() % 4)
                                             : std::int64_t(rng() % spread);
      const std::int64_t t = now + delay;
      queue.push(Event{SimTime::from_ps(t), nullptr, seq});
      reference.emplace(t, seq);
      ++seq;
    } else if (choice < 7) {
      REQUIRE(queue.next_time().ps == reference.begin()->first);
    } else {
      // A look ahead, where the queue gives one, is the event that many places after the
      // next (the engine prefetches for it).
      for (const std::uint32_t ahead : {0u, 1u, 8u}) {
        const Event* p = queue.look_ahead(ahead);
        if (!p) continue;
        ++peeked;
        REQUIRE(reference.size() > ahead);
        const auto& expected = *std::next(reference.begin(), ahead);
        REQUIRE(p->time.ps == expected.first);
        REQUIRE(p->arg == expected.second);
      }
      const Event e = queue.pop();
      REQUIRE(e.time.ps == reference.begin()->first);
      REQUIRE(e.arg == reference.begin()->second);
      now = e.time.ps;
      reference.erase(reference.begin());
    }
    REQUIRE(queue.size() == reference.size());
    REQUIRE(queue.empty() == reference.empty());
  }
  while (!reference.empty()) {
    const Event e = queue.pop();
    REQUIRE(std::make_pair(e.time.ps, e.arg) == *reference.begin());
    reference.erase(reference.begin());
  }
  REQUIRE(queue.empty());
  CHECK(peeked > std::uint64_t(steps) / 100);  // the look-ahead was checked, not skipped
}

}  // namespace

TEST_CASE("the event queue pops in (time, sequence) order, as a sorted reference does",
          "[engine]") {
  SECTION("many events at few times (ties in scheduling order)") {
    check_against_reference(1, 200'000, 8);
  }
  SECTION("times spread over a microsecond") {
    check_against_reference(2, 200'000, 1'000'000);
  }
  SECTION("times spread over 2^44 ps (17 s; the clock cannot overflow in 200,000 steps)") {
    check_against_reference(3, 200'000, std::int64_t(1) << 44);
  }
}

TEST_CASE("the event queue's peek does not stop pushes at the current time", "[engine]") {
  EventQueue queue;
  queue.push(Event{SimTime::from_ps(100), nullptr, 0});
  queue.push(Event{SimTime::from_ps(50), nullptr, 1});
  REQUIRE(queue.pop().arg == 1);  // now = 50
  REQUIRE(queue.next_time().ps == 100);
  // After the peek, events at the current time and between it and the peeked one.
  queue.push(Event{SimTime::from_ps(50), nullptr, 2});
  queue.push(Event{SimTime::from_ps(70), nullptr, 3});
  REQUIRE(queue.next_time().ps == 50);
  REQUIRE(queue.pop().arg == 2);
  REQUIRE(queue.next_time().ps == 70);
  REQUIRE(queue.pop().arg == 3);
  REQUIRE(queue.pop().arg == 0);
  REQUIRE(queue.empty());
  queue.push(Event{SimTime::from_ps(100), nullptr, 4});
  queue.clear();
  REQUIRE(queue.empty());
  REQUIRE(queue.size() == 0);
}
