// A token ring written directly against the simulator's engine, network and node API,
// without the learning layer (no model, no data, no scenario file). N nodes in a ring
// pass a token of S bytes from node i to node i+1 mod N, R times around the ring.
//
// What it shows:
//  - an Engine (the virtual clock, integer picoseconds), a Network (α-β links, fair
//    sharing) and one Node per id: all a simulated process needs;
//  - processes as C++20 coroutines (sim::Task<void>) spawned on the engine;
//  - `co_await me.send(peer, tag, payload)` (resumes once the message has arrived) and
//    `co_await me.recv(peer, tag)` (resumes when it arrives); me.now() is the clock.
//
// Closed form (docs/design.md §7): a lone message of P payload bits plus an H-bit header
// arrives α + (P+H)/β after it is sent. The network rounds each transmission time up to
// whole picoseconds, ⌈(P+H)·10¹²/β⌉ ps (sim/network/transfer_scheduler.hpp, with a
// 1e-6 ps allowance for floating-point error), and adds α exactly. Each node forwards the
// token the instant it arrives, so hop h (h = 1, 2, ...) arrives at
//   t_h = h · (α + ⌈(8S + H)·10¹²/β⌉ ps)
// and the R rounds of N hops end at R·N times that. K tokens launched together from node 0
// (one process per node and token, the token number as the message tag) travel in
// lockstep over the same links, and fair sharing gives each β/K: every hop then takes
// α + ⌈K·(8S + H)·10¹²/β⌉ ps.
#pragma once

#include <memory>
#include <stdexcept>
#include <vector>

#include "sim/runtime/node.hpp"

namespace dlsim::examples {

struct RingConfig {
  int nodes = 4;                                            // N
  int rounds = 3;                                           // R
  int tokens = 1;                                           // K, launched together
  std::uint64_t bytes = 125'000;                            // S: 1 Mbit
  sim::Bits header = 0;                                     // H, per message
  sim::SimTime latency = sim::SimTime::from_ps(5'000'000);  // α = 5 µs
  sim::BitsPerSecond bandwidth = 10e9;                      // β = 10 Gbit/s
};

/// One hop of one token: it arrived at `to` from `from` at `arrival`.
struct Hop {
  int token;
  int round;
  sim::NodeId from;
  sim::NodeId to;
  sim::SimTime arrival;
};

/// The closed form above for one hop: α plus the network's rounded transmission time.
inline sim::SimTime hop_time(const RingConfig& c) {
  const double bits = double(c.tokens) * double(8 * c.bytes + c.header);
  return c.latency + sim::transmission_time(bits, c.bandwidth);
}

/// The process of one node for one token. Node 0 launches the token each round and
/// receives it back from node N-1; every other node receives it from its left
/// neighbour and passes it on to its right one.
inline sim::Task<void> relay(sim::Node& me, const RingConfig& c, int token, sim::Payload payload,
                             std::vector<Hop>& hops) {
  const sim::NodeId left = (me.id() + c.nodes - 1) % c.nodes;
  const sim::NodeId right = (me.id() + 1) % c.nodes;
  for (int round = 0; round < c.rounds; ++round) {
    if (me.id() == 0) co_await me.send(right, token, payload);
    co_await me.recv(left, token);
    hops.push_back(Hop{token, round, left, me.id(), me.now()});
    if (me.id() != 0) co_await me.send(right, token, payload);
  }
}

/// Simulates the ring; returns every hop in arrival order.
inline std::vector<Hop> token_ring(const RingConfig& c) {
  if (c.nodes < 2 || c.rounds < 1 || c.tokens < 1 || !(c.bandwidth > 0))
    throw std::invalid_argument(
        "token ring: needs nodes >= 2, rounds >= 1, tokens >= 1, bandwidth > 0");
  sim::Engine engine;
  sim::Network network(
      engine, sim::NetworkConfig(c.nodes, c.latency, c.bandwidth, sim::Sharing::fair, c.header));
  // A Node also needs a compute model (for co_await me.compute); nothing computes here.
  sim::ComputeModel compute(1e9, {}, 0.0, 1, c.nodes);
  std::vector<sim::Node> nodes;
  for (int i = 0; i < c.nodes; ++i) nodes.emplace_back(i, engine, network, compute);

  // The token: only its size is charged; its bytes (none here) are what a receiver decodes.
  auto token = std::make_shared<models::Encoded>();
  token->bits = 8 * c.bytes;

  std::vector<Hop> hops;
  for (int k = 0; k < c.tokens; ++k)
    for (sim::Node& node : nodes) engine.spawn(relay(node, c, k, token, hops));
  engine.run();  // until no event is left: every token has made its R rounds
  return hops;   // recorded as the clock advanced: in arrival order
}

}  // namespace dlsim::examples
