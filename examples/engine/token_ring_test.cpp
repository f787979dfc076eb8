// The token ring example (token_ring.hpp) against its closed form, exact in integer
// picoseconds: hop h of K tokens launched together arrives at
//   h · (α + ⌈K·(8S + H)·10¹²/β⌉ ps),
// computed here in integer arithmetic (β in whole bits per second), independently of the
// simulator's floating-point transmission times (docs/design.md §7).
#include <catch2/catch.hpp>

#include <cstdint>

#include "examples/engine/token_ring.hpp"

using dlsim::examples::Hop;
using dlsim::examples::RingConfig;
using dlsim::examples::token_ring;
using dlsim::sim::SimTime;

namespace {

// α + ⌈K·(8S + H)·10¹²/β⌉ in picoseconds; every product here stays below 2^64.
std::int64_t expected_hop_ps(const RingConfig& c, std::uint64_t beta) {
  const std::uint64_t bits = std::uint64_t(c.tokens) * (8 * c.bytes + c.header);
  REQUIRE(bits <= 10'000'000);
  const std::uint64_t scaled = bits * 1'000'000'000'000;
  return c.latency.ps + std::int64_t((scaled + beta - 1) / beta);
}

// Checks every hop of the run: count, ring order, and arrival at h · hop.
void check_ring(const RingConfig& c, std::uint64_t beta) {
  const std::int64_t hop = expected_hop_ps(c, beta);
  const std::vector<Hop> hops = token_ring(c);
  REQUIRE(hops.size() == std::size_t(c.rounds) * c.nodes * c.tokens);
  std::vector<int> seen(c.tokens, 0);  // hops so far per token
  for (const Hop& h : hops) {
    const int n = seen.at(h.token)++;  // this is the token's hop n+1
    CHECK(h.from == n % c.nodes);
    CHECK(h.to == (n + 1) % c.nodes);
    CHECK(h.round == n / c.nodes);
    CHECK(h.arrival.ps == std::int64_t(n + 1) * hop);
  }
  for (int k = 0; k < c.tokens; ++k) CHECK(seen[k] == c.rounds * c.nodes);
  CHECK(hops.back().arrival.ps == std::int64_t(c.rounds) * c.nodes * hop);
}

}  // namespace

TEST_CASE("token ring defaults: 4 nodes, 3 rounds, 1 Mbit at 5 us and 10 Gbit/s", "[examples]") {
  RingConfig c;
  // 10^6 bits at 10^10 bit/s: 100 us; plus 5 us: 105 us per hop, 12 hops.
  CHECK(expected_hop_ps(c, 10'000'000'000) == 105'000'000);
  check_ring(c, 10'000'000'000);
  CHECK(token_ring(c).back().arrival.ps == 1'260'000'000);
}

TEST_CASE("a lone token: every hop takes alpha + ceil((8S+H)/beta) in whole ps", "[examples]") {
  SECTION("ping-pong: two nodes, a header, an odd size") {
    RingConfig c;
    c.nodes = 2;
    c.rounds = 5;
    c.bytes = 1001;
    c.header = 512;
    c.latency = SimTime::from_ps(1'000'000);
    c.bandwidth = 1e9;
    check_ring(c, 1'000'000'000);
  }
  SECTION("a bandwidth that does not divide 10^12: the transmission time is rounded up") {
    RingConfig c;
    c.nodes = 7;
    c.rounds = 2;
    c.bytes = 12'345;
    c.header = 4;
    c.latency = SimTime::from_ps(2'500'001);
    c.bandwidth = 3e9;  // (8·12345 + 4)·1000/3 ps = 32921333.33 ps -> 32921334 ps
    CHECK(expected_hop_ps(c, 3'000'000'000) == 2'500'001 + 32'921'334);
    check_ring(c, 3'000'000'000);
  }
  SECTION("zero latency") {
    RingConfig c;
    c.nodes = 3;
    c.latency = SimTime{};
    c.bandwidth = 7e9;
    check_ring(c, 7'000'000'000);
  }
}

TEST_CASE("tokens launched together share every link fairly: each hop takes K times as long",
          "[examples]") {
  SECTION("two and three tokens on five nodes") {
    for (int tokens : {2, 3}) {
      RingConfig c;
      c.nodes = 5;
      c.rounds = 2;
      c.tokens = tokens;
      c.header = 512;
      check_ring(c, 10'000'000'000);
    }
  }
  SECTION("two tokens on three nodes at 3 Gbit/s: 2·8·4099·1000/3 ps is rounded up") {
    RingConfig c;
    c.nodes = 3;
    c.tokens = 2;
    c.bytes = 4'099;
    c.bandwidth = 3e9;
    check_ring(c, 3'000'000'000);
  }
}

TEST_CASE("a ring needs two nodes, a round, a token and a bandwidth", "[examples]") {
  RingConfig c;
  c.nodes = 1;
  CHECK_THROWS_AS(token_ring(c), std::invalid_argument);
  c = RingConfig{};
  c.tokens = 0;
  CHECK_THROWS_AS(token_ring(c), std::invalid_argument);
  c = RingConfig{};
  c.bandwidth = 0;
  CHECK_THROWS_AS(token_ring(c), std::invalid_argument);
}
