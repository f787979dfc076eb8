// The α-β parameters of every node and link (docs/design.md §7).
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/engine/units.hpp"
#include "sim/network/faults.hpp"
#include "sim/network/message.hpp"
#include "sim/network/network_model.hpp"

namespace dlsim::sim {

enum class Sharing { fair, fifo };

struct LinkParams {
  SimTime latency;
  BitsPerSecond bandwidth;
};

class NetworkConfig {
 public:
  NetworkConfig(int nodes, SimTime latency, BitsPerSecond bandwidth, Sharing sharing, Bits header)
      : egress_(nodes, bandwidth),
        ingress_(nodes, bandwidth),
        default_link_{latency, bandwidth},
        sharing_(sharing),
        header_(header) {}

  int nodes() const { return int(egress_.size()); }
  Sharing sharing() const { return sharing_; }
  Bits header() const { return header_; }
  /// `network.model` (network_model.hpp); cm02 unless set.
  NetworkModel model() const { return model_; }
  void set_model(NetworkModel model) { model_ = model; }

  /// Drops, scheduled changes and outages (sim/network/faults.hpp); none by default.
  NetworkFaults& faults() { return faults_; }
  const NetworkFaults& faults() const { return faults_; }

  BitsPerSecond egress(NodeId n) const { return egress_[n]; }
  BitsPerSecond ingress(NodeId n) const { return ingress_[n]; }
  void set_egress(NodeId n, BitsPerSecond r) { egress_[n] = r; }
  void set_ingress(NodeId n, BitsPerSecond r) { ingress_[n] = r; }
  void set_all_nics(BitsPerSecond egress, BitsPerSecond ingress) {
    egress_.assign(egress_.size(), egress);
    ingress_.assign(ingress_.size(), ingress);
  }

  LinkParams link(NodeId from, NodeId to) const {
    if (links_.empty()) return default_link_;  // no per-link values: skip the hashing
    auto it = links_.find(key(from, to));
    return it == links_.end() ? default_link_ : it->second;
  }
  /// Whether some link has its own values (set_link); otherwise every link is the default.
  bool has_link_values() const { return !links_.empty(); }
  const LinkParams& default_link() const { return default_link_; }
  void set_link(NodeId from, NodeId to, std::optional<SimTime> latency,
                std::optional<BitsPerSecond> bandwidth) {
    LinkParams p = link(from, to);
    if (latency) p.latency = *latency;
    if (bandwidth) p.bandwidth = *bandwidth;
    links_[key(from, to)] = p;
  }

 private:
  static std::uint64_t key(NodeId from, NodeId to) {
    return (std::uint64_t(std::uint32_t(from)) << 32) | std::uint32_t(to);
  }
  std::vector<BitsPerSecond> egress_;
  std::vector<BitsPerSecond> ingress_;
  LinkParams default_link_;
  std::unordered_map<std::uint64_t, LinkParams> links_;
  Sharing sharing_;
  Bits header_;
  NetworkModel model_ = NetworkModel::cm02;
  NetworkFaults faults_;
};

}  // namespace dlsim::sim
