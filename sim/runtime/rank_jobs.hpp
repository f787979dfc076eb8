// The compute phases of a simulation spread over ranks (sim/engine/rank_group.hpp).
// Every rank runs the whole engine and network; a node's math runs only on its owner
// (WorkerPlacement). At the end of each phase the owners ship, per job and in the
// phase's order, the cost (or the error) and the messages the math encoded, as their
// exact bytes; every other rank then replays the job: the algorithm's code runs again on
// the node's empty (non-local) state, and its WorkerMath hands out the owner's messages
// instead of encoding. So every rank sends the same messages at the same simulated
// times, a receiver decodes the bytes its sender's owner produced, and metrics.csv is
// the single-process one, whatever the number of ranks.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/engine/rank_group.hpp"
#include "sim/network/message.hpp"
#include "sim/runtime/compute_job.hpp"

namespace dlsim::sim {

class RankJobs final : public JobExchange {
 public:
  /// `nodes`: every simulated node (workers, then servers).
  RankJobs(RankGroup& ranks, WorkerPlacement placement, int nodes);

  const WorkerPlacement& placement() const { return placement_; }

  bool local(const ComputeJob& job) const override;
  void exchange(std::span<ComputeJob* const> jobs) override;

  /// A message of `node`, from `encode()` on its owner (WorkerMath::encode):
  ///  - in a local compute job: encoded here, and shipped with the job's result;
  ///  - in a replayed job: the owner's next message of that job;
  ///  - on the engine thread (a server's reply; every rank is at this point of the
  ///    simulation at once): encoded by the owner and broadcast from it.
  template <class Encode>
  Payload route(NodeId node, Encode&& encode) {
    if (inside_compute_job) {  // running a local job (compute_job.hpp)
      Payload p = encode();
      outbox_[std::size_t(node)].push_back(p);
      return p;
    }
    if (replaying_) return replay(node);
    return share(node, placement_.local(node) ? encode() : nullptr);
  }

 private:
  Payload replay(NodeId node);
  Payload share(NodeId node, Payload p);

  RankGroup& ranks_;
  WorkerPlacement placement_;
  std::vector<std::vector<Payload>> outbox_;  // per node: this phase's messages, in order
  std::vector<std::size_t> replayed_;         // per node: messages handed out so far
  std::vector<std::byte> buffer_;             // this rank's results of the phase
  bool replaying_ = false;                    // in exchange(), replaying other ranks' jobs
};

}  // namespace dlsim::sim
