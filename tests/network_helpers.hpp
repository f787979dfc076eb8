// Test helper: a small simulated cluster for the network and fault tests — an engine,
// one α-β network (latency kAlpha, bandwidth kBeta, a kHeader-bit header by default),
// a compute model, and one Node per id — plus payloads of a given size in bits.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "sim/runtime/node.hpp"

namespace dlsim::test {

inline constexpr double kAlpha = 5e-6;     // 5 us
inline constexpr double kBeta = 10e9;      // 10 Gbps
inline constexpr sim::Bits kHeader = 512;  // 64 B

/// An encoded message that carries nothing but its size.
inline sim::Payload payload(sim::Bits bits) {
  auto e = std::make_shared<models::Encoded>();
  e->bits = bits;
  return e;
}

/// `n` nodes on one network; `configure` (if given) edits the network's configuration
/// (per-node or per-link overrides, faults) before the network is built.
struct NetworkCluster {
  sim::Engine engine;
  std::unique_ptr<sim::Network> network;
  std::unique_ptr<sim::ComputeModel> compute;
  std::vector<sim::Node> nodes;

  NetworkCluster(int n, sim::Sharing sharing, sim::Bits header = kHeader,
                 const std::function<void(sim::NetworkConfig&)>& configure = {}) {
    sim::NetworkConfig config(n, sim::SimTime::from_seconds(kAlpha), kBeta, sharing, header);
    if (configure) configure(config);
    network = std::make_unique<sim::Network>(engine, config);
    compute = std::make_unique<sim::ComputeModel>(1e9, std::vector<double>{}, 0.0, 1, n);
    for (int i = 0; i < n; ++i) nodes.emplace_back(i, engine, *network, *compute);
  }
};

}  // namespace dlsim::test
