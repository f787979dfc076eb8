// What the SVRG family (svrg, lpc-svrg, alpc-svrg) shares in its registrations: the
// keys of the snapshot/epoch structure and the checks that go with them.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/scenario/algorithm_registry.hpp"

#include "spec/key_table.hpp"

namespace dlsim::sim {

struct Scenario;

/// collective, epoch_length, downlink_compressor.
std::vector<spec::Key> svrg_keys();
/// snapshot: last | average (svrg, lpc-svrg).
spec::Key snapshot_key();
/// quantize_snapshot (lpc-svrg, alpc-svrg).
spec::Key quantize_snapshot_key();
/// The compressor kind the low-precision kinds default to (lpc, docs/algorithms.md §1.1).
inline constexpr const char* kLowPrecisionCompressor = "lpc";

/// The options of the SVRG family, read once (svrg_keys.cpp). What a kind does not have
/// keeps its member at "not done": svrg quantizes nothing, only alpc-svrg has sigma, L,
/// option and double sampling.
struct SvrgFamilyOptions final : AlgorithmOptions {
  std::optional<std::int64_t> epoch_length;          // absent: one pass over a shard
  std::optional<models::CompressorConfig> downlink;  // absent: fp32 aggregate
  bool average_snapshot = false;                     // snapshot: average
  bool send_difference = false;                      // lpc-svrg quantize: difference
  bool quantize_snapshot = false;                    // lpc-svrg, alpc-svrg
  std::optional<double> sigma;                       // alpc-svrg; absent: model.l2
  std::optional<double> L;                           // alpc-svrg; absent: estimated
  bool option_one = true;                            // alpc-svrg option I (else II)
  bool double_sampling = false;                      // alpc-svrg

  /// Reads the kind's keys; a bad downlink_compressor throws InputError at its key.
  static std::shared_ptr<const AlgorithmOptions> read(const nlohmann::json& algorithm);
  std::vector<std::pair<std::string, models::CompressorConfig>> compressors() const override {
    if (!downlink) return {};
    return {{"algorithm.downlink_compressor", *downlink}};
  }
};

/// The family's own checks: a downlink only from a parameter server, its options, and an
/// explicit epoch_length for models without data. Throws InputError.
void check_svrg_family(const Scenario& s);

}  // namespace dlsim::sim
