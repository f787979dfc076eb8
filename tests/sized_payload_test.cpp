// sized_payload (sim/network/sized_payload.hpp): a profile model's messages are sizes. One
// shared, immutable payload per (bits, dimension), found again whatever the thread and
// however many other sizes came between, and handed out with no reference count.
#include <catch2/catch.hpp>

#include <thread>
#include <vector>

#include "sim/network/sized_payload.hpp"

using dlsim::sim::Payload;
using dlsim::sim::sized_payload;

TEST_CASE("sized payloads carry their size, no bytes, and are shared per size") {
  const Payload a = sized_payload(32000, 1000);
  REQUIRE(a);
  CHECK(a->bits == 32000);
  CHECK(a->dimension == 1000);
  CHECK(a->bytes.empty());
  // The same size: the same object, and nothing counted (no owner to keep alive).
  const Payload b = sized_payload(32000, 1000);
  CHECK(b.get() == a.get());
  CHECK(a.use_count() == 0);
  const Payload copy = a;  // what a broadcast does per transfer
  CHECK(copy.use_count() == 0);
  // A different bit count or dimension: another object.
  const Payload other_bits = sized_payload(32001, 1000);
  const Payload other_dimension = sized_payload(32000, 1001);
  CHECK(other_bits.get() != a.get());
  CHECK(other_dimension.get() != a.get());
  CHECK(other_bits->bits == 32001);
  CHECK(other_dimension->dimension == 1001);
}

TEST_CASE("a sized payload is found again after many other sizes and on other threads") {
  const Payload first = sized_payload(4096, 128);
  // More sizes than a thread remembers: the first must come from the process's table.
  for (std::uint64_t bits = 1; bits <= 40; ++bits) {
    const Payload p = sized_payload(bits, 7);
    CHECK(p->bits == bits);
  }
  CHECK(sized_payload(4096, 128).get() == first.get());

  // Threads asking at once for the same sizes get the same objects.
  constexpr int kThreads = 4, kSizes = 50;
  std::vector<std::vector<const dlsim::models::Encoded*>> seen(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&seen, t] {
      for (int k = 0; k < kSizes; ++k)
        seen[t].push_back(sized_payload(100000 + std::uint64_t(k), 3).get());
    });
  for (std::thread& th : threads) th.join();
  for (int t = 1; t < kThreads; ++t) CHECK(seen[t] == seen[0]);
  for (int k = 0; k < kSizes; ++k) CHECK(seen[0][k]->bits == 100000 + std::uint64_t(k));
  CHECK(sized_payload(4096, 128).get() == first.get());
}
