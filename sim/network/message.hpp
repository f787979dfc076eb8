// A message between two nodes. The simulated size (the payload's exact bits) is what
// the network charges; the bytes are what the receiver decodes. A broadcast shares
// one encoded payload among all its transfers.
#pragma once

#include <cstdint>
#include <memory>

#include "models/compress/compressor.hpp"
#include "sim/engine/units.hpp"

namespace dlsim::sim {

using NodeId = std::int32_t;
using Payload = std::shared_ptr<const models::Encoded>;

struct Message {
  NodeId src = 0;
  NodeId dst = 0;
  std::uint64_t tag = 0;  // what the receiver matches on (e.g. the round)
  Payload payload;        // may hold no bytes (profile models): only bits count

  Bits payload_bits() const { return payload ? payload->bits : 0; }
};

}  // namespace dlsim::sim
