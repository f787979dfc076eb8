// The all-gather collective (docs/algorithms.md §2): every worker broadcasts its encoded
// contribution to the n−1 others (tag r), receives theirs, and computes the mean itself:
//   mean = (1/n) Σ_j decode(encode_j(v_j))   (summed in worker order, its own message
// decoded as the others decode it), so every worker gets the same vector bit for bit.
// On a uniform network a round takes α + (n−1)S/β (S = bits + H): each worker's n−1
// copies leave through its own egress; the ingress ports each take n−1 messages at once.
//
// Where the math runs: contribute() encodes; result() decodes the n messages and sums
// them, O(nd): SGD runs it in a compute job of its own (no simulated time).
#pragma once

#include "sim/collectives/collective.hpp"

namespace dlsim::sim {

class Allgather final : public Collective {
 public:
  explicit Allgather(Training& training) : t_(training) {}

  std::unique_ptr<Endpoint> join(int id, WorkerMath& math) override;
  int workers_to_simulate() const override { return t_.workers(); }

 private:
  Training& t_;
};

}  // namespace dlsim::sim
