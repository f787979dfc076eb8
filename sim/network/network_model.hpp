// `network.model` (docs/design.md §7): how a flow's latency, rate and share are derived
// from the α-β parameters.
//
// cm02 (default): latency α_ij, max-min fair sharing with equal weights, no rate bound.
//   SimGrid's CM02 with network/TCP-gamma:0 and network/crosstraffic:0.
//
// lv08: SimGrid's default model (Velho & Legrand, "Accuracy study and improvement of
//   network simulation in the SimGrid framework", SIMUTools 2009) with its default
//   constants and cross-traffic off, as in SimGrid 3.32 src/surf/network_cm02.cpp
//   (surf_network_model_init_LegrandVelho, NetworkCm02Model::communicate,
//   comm_action_set_bounds, comm_action_set_variable) and
//   src/kernel/resource/NetworkModel.cpp (TCP-gamma). For a flow i -> j with route
//   egress_i, link (i,j), ingress_j (SimGrid units: bytes, bytes/s, seconds):
//     latency   = 13.01 · α_ij
//     weight    = 1 / penalty, penalty = α_ij + S · (1/E_i + 1/β_ij + 1/I_j), S = 20537
//                 (α_ij = 0: penalty 1, SimGrid's variable_new(action, 1.0, ...))
//     bound     = γ / (2 α_ij) on the max-min variable, γ = 4194304 (none when α_ij = 0;
//                 α_ij is the latency before the factor, SimGrid's lat_current_)
//     rate      = 0.97 · value, value = the flow's share of a weighted max-min system
//                 (Σ value ≤ capacity per resource, value = θ · weight, or its bound)
//   A lone message of P bits thus takes 13.01 α + P / (0.97 · min(β, 8γ / (2α))).
#pragma once

#include <algorithm>

#include "sim/engine/units.hpp"

namespace dlsim::sim {

enum class NetworkModel { cm02, lv08 };

namespace lv08 {
inline constexpr double kLatencyFactor = 13.01;
inline constexpr double kBandwidthFactor = 0.97;
inline constexpr double kWeightS = 20537;     // bytes
inline constexpr double kTcpGamma = 4194304;  // bytes (largest TCP window)
inline constexpr double kBitsPerByte = 8;

/// The latency a flow pays: 13.01 α, rounded to the nearest picosecond.
inline SimTime latency(SimTime alpha) {
  return SimTime::from_ps_rounded(kLatencyFactor * double(alpha.ps));
}

/// Sharing penalty of a flow (seconds): α + S · Σ 1/bandwidth over its route, bandwidths
/// converted to bytes/s; 1 when α = 0 (SimGrid then never sets the penalty).
inline double penalty(SimTime alpha, BitsPerSecond egress, BitsPerSecond link,
                      BitsPerSecond ingress) {
  if (alpha.ps == 0) return 1.0;
  const double to_bytes = 1.0 / kBitsPerByte;
  return alpha.seconds() + kWeightS / (egress * to_bytes) + kWeightS / (link * to_bytes) +
         kWeightS / (ingress * to_bytes);
}

/// Bound on a flow's max-min value (bits/s): the TCP window over one round trip,
/// 8γ / (2α); 0 means unbounded (α = 0).
inline BitsPerSecond window_bound(SimTime alpha) {
  if (alpha.ps == 0) return 0;
  return kTcpGamma / (2.0 * alpha.seconds()) * kBitsPerByte;
}
}  // namespace lv08

}  // namespace dlsim::sim
