// `fair` sharing: fluid flows share every egress port, ingress port and link by
// max-min fairness, recomputed whenever a transfer starts or ends (progressive
// filling: repeatedly saturate the resource with the smallest fair share). This is
// SimGrid's CM02 model without its TCP correction factors and window bound.
#pragma once

#include <unordered_map>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/network/transfer_scheduler.hpp"

namespace dlsim::sim {

class FairSharing final : public TransferScheduler, private EventHandler {
 public:
  FairSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink);
  void add(TransferId id, NodeId src, NodeId dst, double bits) override;
  void rates_changed() override;

 private:
  struct Flow {
    TransferId id;
    int resources[3];  // egress, ingress, link (-1: the link never binds)
    double remaining;  // bits not yet transmitted
    double rate;       // bits per second
  };

  void on_event(std::uint64_t version) override;
  void advance();
  void solve();
  void schedule_next();
  int link_resource(NodeId src, NodeId dst);

  Engine& engine_;
  const NetworkConfig& config_;
  TransferSink& sink_;
  std::vector<Flow> flows_;       // in start order
  std::vector<double> capacity_;  // per resource: egress 0..n-1, ingress n..2n-1, links
  std::unordered_map<std::uint64_t, int> link_ids_;
  SimTime last_update_{};
  std::uint64_t version_ = 0;  // invalidates wake-ups planned before the last change
  // Scratch for solve(), kept to avoid allocation per change.
  std::vector<double> left_;
  std::vector<int> users_;
  std::vector<int> touched_;
  std::vector<char> fixed_;
  std::vector<char> saturated_;
};

}  // namespace dlsim::sim
