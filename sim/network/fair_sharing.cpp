#include "sim/network/fair_sharing.hpp"

#include <algorithm>
#include <limits>

namespace dlsim::sim {

FairSharing::FairSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink)
    : engine_(engine), config_(config), sink_(sink) {
  const int n = config.nodes();
  capacity_.resize(2 * n);
  for (int i = 0; i < n; ++i) {
    capacity_[i] = config.egress(i);
    capacity_[n + i] = config.ingress(i);
  }
}

int FairSharing::link_resource(NodeId src, NodeId dst) {
  // A link at least as fast as both its ports can never be the bottleneck: every flow
  // on it also crosses those ports, where its share is no larger.
  const double bw = config_.link(src, dst).bandwidth;
  if (bw >= std::min(config_.egress(src), config_.ingress(dst))) return -1;
  const auto key = (std::uint64_t(std::uint32_t(src)) << 32) | std::uint32_t(dst);
  auto [it, inserted] = link_ids_.try_emplace(key, int(capacity_.size()));
  if (inserted) capacity_.push_back(bw);
  return it->second;
}

void FairSharing::add(TransferId id, NodeId src, NodeId dst, double bits) {
  advance();
  const int n = config_.nodes();
  flows_.push_back(Flow{id, {src, n + dst, link_resource(src, dst)}, bits, 0.0});
  solve();
  schedule_next();
}

void FairSharing::rates_changed() {
  advance();
  const int n = config_.nodes();
  for (int i = 0; i < n; ++i) {
    capacity_[i] = config_.egress(i);
    capacity_[n + i] = config_.ingress(i);
  }
  for (const auto& [key, resource] : link_ids_)
    capacity_[resource] = config_.link(NodeId(key >> 32), NodeId(key & 0xffffffffu)).bandwidth;
  for (Flow& f : flows_) f.resources[2] = link_resource(f.resources[0], f.resources[1] - n);
  solve();
  schedule_next();
}

void FairSharing::on_event(std::uint64_t version) {
  if (version != version_) return;  // planned before a later change
  advance();
  // Every flow that would finish within the next picosecond is done now.
  std::vector<TransferId> done;
  std::erase_if(flows_, [&](const Flow& f) {
    if (f.remaining > f.rate * 1e-12) return false;
    done.push_back(f.id);
    return true;
  });
  solve();
  schedule_next();
  for (TransferId id : done) sink_.transmitted(id);
}

void FairSharing::advance() {
  const double dt = (engine_.now() - last_update_).seconds();
  last_update_ = engine_.now();
  if (dt <= 0) return;
  for (Flow& f : flows_) f.remaining -= f.rate * dt;
}

void FairSharing::solve() {
  left_.resize(capacity_.size());
  users_.assign(capacity_.size(), 0);
  touched_.clear();
  for (const Flow& f : flows_) {
    for (int r : f.resources) {
      if (r < 0) continue;
      if (users_[r]++ == 0) {
        touched_.push_back(r);
        left_[r] = capacity_[r];
      }
    }
  }
  saturated_.resize(capacity_.size());
  fixed_.assign(flows_.size(), 0);
  std::size_t unfixed = flows_.size();
  while (unfixed > 0) {
    // Progressive filling: the resources with the smallest fair share saturate first,
    // all of them at once when several tie (a symmetric pattern then takes one round).
    double share = std::numeric_limits<double>::infinity();
    for (int r : touched_)
      if (users_[r] > 0) share = std::min(share, std::max(left_[r], 0.0) / users_[r]);
    for (int r : touched_)
      saturated_[r] = users_[r] > 0 && std::max(left_[r], 0.0) / users_[r] <= share * (1 + 1e-12);
    for (std::size_t k = 0; k < flows_.size(); ++k) {
      Flow& f = flows_[k];
      if (fixed_[k]) continue;
      bool bottlenecked = false;
      for (int r : f.resources) bottlenecked |= r >= 0 && saturated_[r];
      if (!bottlenecked) continue;
      f.rate = share;
      fixed_[k] = 1;
      --unfixed;
      for (int r : f.resources) {
        if (r < 0) continue;
        left_[r] -= share;
        --users_[r];
      }
    }
  }
}

void FairSharing::schedule_next() {
  ++version_;
  if (flows_.empty()) return;
  SimTime soonest = SimTime::max();
  for (const Flow& f : flows_)
    soonest = std::min(soonest, transmission_time(std::max(f.remaining, 0.0), f.rate));
  engine_.schedule(engine_.now() + soonest, this, version_);
}

}  // namespace dlsim::sim
