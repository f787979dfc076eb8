// Timeline hooks (SimGrid-style signals, docs/design.md §1): the runtime and the network
// report what takes simulated time — a node's computation, a transfer's start, the
// moment its last bit leaves the sender, its arrival — to an observer attached from
// outside (the trace writer). Algorithms know nothing of it. With no observer
// attached the cost is one null-pointer test per activity.
#pragma once

#include <cstdint>

#include "sim/engine/units.hpp"
#include "sim/network/message.hpp"

namespace dlsim::sim {

class ActivityObserver {
 public:
  virtual ~ActivityObserver() = default;
  /// `node` computes during [start, start + duration).
  virtual void on_compute(NodeId node, SimTime start, SimTime duration) = 0;
  /// Transfer `slot` (reused after arrival) of `msg` starts now, `wire_bits` on the wire.
  virtual void on_transfer_start(std::uint32_t slot, const Message& msg, Bits wire_bits,
                                 SimTime now) = 0;
  /// Its last bit has left the sender; it arrives one link latency later.
  virtual void on_transfer_transmitted(std::uint32_t slot, SimTime now) = 0;
  /// It has arrived at the receiver.
  virtual void on_transfer_arrived(std::uint32_t slot, SimTime now) = 0;
};

}  // namespace dlsim::sim
