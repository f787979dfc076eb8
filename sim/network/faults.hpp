// Faults of the simulated network (docs/design.md §7, issue 10): message drops with
// retransmission, scheduled changes of link and port parameters, and link outages.
//
// Drops: when the last bit of a transmission has left, it is lost with probability p
// (the link's `drop_probability`, else the global one), drawn from the seeded stream
// make_rng(seed, "network-drops", link) with link = from · 2^32 + to. The sender notices
// after `retransmit_timeout` (default 3 round trips, 6 · network.latency) and sends the
// whole message again; it arrives once. Every transmission counts in bytes_wire; bits_total
// and messages count the message once. Attempts are geometric: E[transmissions] = 1/(1-p).
//
// Schedule: an entry changes a link's latency/bandwidth or a node's egress/ingress from
// time `at` on. It takes effect at the first network event at or after `at` (a transfer
// starting, finishing its transmission, or being retransmitted), so a change that falls
// between transfers is exact; under fair sharing the rates of transfers in flight are
// recomputed then, under fifo a running transfer keeps its rate.
//
// Outages: during [start, end) a link delivers nothing: a transfer that would start on it
// waits until `end`, and one whose last bit leaves during the outage arrives at
// end + latency.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/engine/units.hpp"
#include "sim/network/message.hpp"

namespace dlsim::sim {

struct ScheduledChange {
  SimTime at;
  // A link change names from and to; a node change names node (the others are -1).
  NodeId from = -1;
  NodeId to = -1;
  NodeId node = -1;
  std::optional<SimTime> latency;
  std::optional<BitsPerSecond> bandwidth;
  std::optional<BitsPerSecond> egress;
  std::optional<BitsPerSecond> ingress;
};

struct LinkOutage {
  NodeId from;
  NodeId to;
  SimTime start;
  SimTime end;
};

struct NetworkFaults {
  std::uint64_t seed = 1;
  double drop_probability = 0;                                // every link without its own
  std::unordered_map<std::uint64_t, double> link_drop;        // link key -> probability
  SimTime retransmit_timeout = SimTime::from_ps(60'000'000);  // 60 us
  std::vector<ScheduledChange> schedule;                      // sorted by `at`
  std::vector<LinkOutage> outages;

  static std::uint64_t link_key(NodeId from, NodeId to) {
    return (std::uint64_t(std::uint32_t(from)) << 32) | std::uint32_t(to);
  }
  double drop_probability_of(NodeId from, NodeId to) const {
    auto it = link_drop.find(link_key(from, to));
    return it == link_drop.end() ? drop_probability : it->second;
  }
  bool any_drops() const { return drop_probability > 0 || !link_drop.empty(); }
  /// The end of the outage of link from->to that covers time t, if any (the latest end
  /// when outages overlap or touch).
  std::optional<SimTime> down_until(NodeId from, NodeId to, SimTime t) const {
    std::optional<SimTime> until;
    bool extended = true;
    while (extended) {
      extended = false;
      const SimTime at = until.value_or(t);
      for (const auto& o : outages)
        if (o.from == from && o.to == to && o.start <= at && at < o.end) {
          until = o.end;
          extended = true;
        }
    }
    return until;
  }
};

}  // namespace dlsim::sim
