// How concurrent transfers share ports and links (docs/design.md §7): a scheduler decides
// when the last bit of each transfer has left, and reports it to its sink. Latency
// is added afterwards by the network.
#pragma once

#include <cstdint>

#include "sim/network/message.hpp"
#include "sim/network/network_config.hpp"

namespace dlsim::sim {

using TransferId = std::uint32_t;

class TransferSink {
 public:
  /// The last bit of transfer `id` has been transmitted (at the engine's now()).
  virtual void transmitted(TransferId id) = 0;

 protected:
  ~TransferSink() = default;
};

class TransferScheduler {
 public:
  virtual ~TransferScheduler() = default;
  /// A transfer of `bits` (payload + header) from src to dst starts now.
  virtual void add(TransferId id, NodeId src, NodeId dst, double bits) = 0;
  /// The configuration's port or link rates changed now (a scheduled change).
  virtual void rates_changed() {}
  /// Room for transfer ids below `transfers` without growing (capacity only; a hint).
  virtual void reserve(std::size_t transfers) { (void)transfers; }
};

/// Time to send `bits` at `rate`, rounded up to whole picoseconds.
inline SimTime transmission_time(double bits, BitsPerSecond rate) {
  const double ps = std::ceil(bits / rate * double(SimTime::kPerSecond) - 1e-6);
  return ps < 0x1p63 ? SimTime::from_ps(std::int64_t(ps)) : SimTime::max();  // saturates
}

}  // namespace dlsim::sim
