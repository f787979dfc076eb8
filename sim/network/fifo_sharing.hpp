// `fifo` sharing: every port serializes its transfers first-come first-served. A
// transfer starts when it is at the head of both its egress and its ingress queue,
// and then runs alone at min(β_link, egress, ingress). A transfer waiting for a busy
// ingress holds back everything queued behind it at its egress (head-of-line
// blocking). Queues are ordered by start time, so the earliest waiting transfer is
// always at the head of both its queues and the model cannot deadlock.
#pragma once

#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/network/ring_queue.hpp"
#include "sim/network/transfer_scheduler.hpp"

namespace dlsim::sim {

class FifoSharing final : public TransferScheduler, private EventHandler {
 public:
  FifoSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink);
  void add(TransferId id, NodeId src, NodeId dst, double bits) override;

 private:
  struct Job {
    NodeId src;
    NodeId dst;
    double bits;
    bool running;
  };
  void on_event(std::uint64_t id) override;
  void try_start(TransferId id);

  Engine& engine_;
  const NetworkConfig& config_;
  TransferSink& sink_;
  std::vector<Job> jobs_;  // indexed by TransferId (the network reuses ids)
  std::vector<RingQueue<TransferId>> egress_queue_;  // no allocation once grown
  std::vector<RingQueue<TransferId>> ingress_queue_;
};

}  // namespace dlsim::sim
