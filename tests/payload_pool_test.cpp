// PayloadPool (sim/network/payload_pool.hpp): a buffer is handed out again only once the
// pool alone holds it, free buffers are taken round robin from the one after the last
// handed out (the oldest first), and a new buffer is added only when none is free.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/network/payload_pool.hpp"

using dlsim::sim::PayloadPool;

TEST_CASE("payload pool: buffers come back once released, round robin, new ones only when needed") {
  PayloadPool pool;
  auto a = pool.acquire();
  auto b = pool.acquire();
  auto c = pool.acquire();
  REQUIRE(pool.size() == 3);  // each was held when the next was asked for
  CHECK(a != b);
  CHECK(b != c);
  CHECK(a != c);

  const auto* a0 = a.get();
  const auto* b0 = b.get();
  const auto* c0 = c.get();
  b.reset();
  auto again = pool.acquire();  // the only free one
  CHECK(again.get() == b0);
  CHECK(pool.size() == 3);

  // Round robin from the one after b: c, then a, then b.
  a.reset();
  c.reset();
  again.reset();
  std::vector<const dlsim::models::Encoded*> order;
  std::vector<dlsim::sim::Payload> held;
  for (int i = 0; i < 3; ++i) {
    held.push_back(pool.acquire());
    order.push_back(held.back().get());
  }
  CHECK(order == std::vector<const dlsim::models::Encoded*>{c0, a0, b0});
  CHECK(pool.size() == 3);

  // All held: a fourth buffer is made; released, every later call wraps around in turn.
  auto d = pool.acquire();
  CHECK(pool.size() == 4);
  const auto* d0 = d.get();
  d.reset();
  held.clear();
  std::vector<const dlsim::models::Encoded*> wraps;
  for (int i = 0; i < 6; ++i) wraps.push_back(pool.acquire().get());  // released at once
  CHECK(pool.size() == 4);
  // After a new buffer the turn starts at the first one again.
  CHECK(wraps == std::vector<const dlsim::models::Encoded*>{a0, b0, c0, d0, a0, b0});
}
