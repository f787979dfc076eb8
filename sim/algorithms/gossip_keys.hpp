// Keys that several gossip kinds share (CHOCO-SGD, AdaG-SGD, CHOCO-gossip, adag-sgp):
// one definition each, so that the key reference documents them once.
#pragma once

#include "spec/key_table.hpp"

namespace dlsim::sim {

/// consensus_step: CHOCO's gamma.
inline spec::Key consensus_step_key() {
  using namespace spec;
  return defaulted("consensus_step", number().gt(0), 1.0,
                   "CHOCO's consensus step gamma, usually in (0, 1] (choco-sgp: at most 1); "
                   "adag-sgd's and adag-sgp's upper bound before the per-coordinate scaling "
                   "(tune it with a sweep over choco-gossip).");
}

/// order: the step order of the AdaGossip code or of the original CHOCO code.
inline spec::Key choco_order_key() {
  using namespace spec;
  return defaulted(
      "order", one_of({"adagossip", "choco-paper"}), "adagossip",
      "adagossip: apply last round's messages, consensus step, local step, compress and send "
      "(the AdaGossip code); choco-paper: local step, consensus step, compress and send, "
      "receive (the original CHOCO code).");
}

}  // namespace dlsim::sim
