// What a centralized collective keeps in memory besides the algorithm's own vectors, for
// the memory estimate (sim/run/memory_estimate.hpp): buffers per worker in model-sized
// vectors, and how many messages one round puts in flight at once (each holds a transfer
// slot, a mailbox entry and a fair-sharing flow until it is read). Measured against peak
// RSS like StateMemory (sim/scenario/algorithm_registry.hpp).
#pragma once

#include <string>

namespace dlsim::sim {

struct CollectiveMemory {
  double worker_vectors = 0;
  double messages_per_round = 0;
};

/// For algorithm.collective `collective` over n workers:
///   parameter-server  no buffers of its own; n uploads and n replies per round;
///   allgather         received vectors and the decoded sum; n(n − 1) messages;
///   ring-allreduce    the chunk buffers (one vector in all) and the sum; n messages.
inline CollectiveMemory collective_memory(const std::string& collective, double n) {
  if (collective == "allgather") return {.worker_vectors = 3, .messages_per_round = n * (n - 1)};
  if (collective == "ring-allreduce") return {.worker_vectors = 1.5, .messages_per_round = n};
  return {.worker_vectors = 0, .messages_per_round = 2 * n};
}

}  // namespace dlsim::sim
