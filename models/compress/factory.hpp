// The compressor of a scenario's `algorithm.compressor` object: the common keys, parsed
// once into a typed config (the registered kind's options, registry.hpp), checked, and
// built into the whole chain ErrorFeedback(PerTensor(kind)) per message stream.
//
// Parse errors name the offending key relative to the compressor object ("bits",
// "clip.value"); the simulator prefixes "algorithm.compressor.".
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compress/quantizers.hpp"
#include "models/compress/registry.hpp"
#include "models/compress/sparsifiers.hpp"

namespace dlsim::models {

/// The kind that sends fp32 values unchanged (algorithms that need uncompressed messages).
inline constexpr const char* kUncompressed = "none";

struct CompressorConfig {
  std::string kind = kUncompressed;  // a registered compressor (registry.hpp)
  bool error_feedback = false;
  bool per_tensor = true;
  /// The kind's typed options; null: the kind's defaults.
  std::shared_ptr<const CompressorOptions> options;
};

/// The discriminator of a compressor object, with its default (kUncompressed).
spec::Key compressor_kind_key(std::string doc);
/// The keys every compressor kind accepts: error_feedback, per_tensor.
std::vector<spec::Key> compressor_common_keys();

/// The kinds whose compressors are all-reducible (Compressor::all_reducible), in registry
/// (name) order. Computed once, on the first call: call it only after main has started
/// (every kind registered), never from a static initializer.
const std::vector<std::string>& all_reducible_kinds();

/// Reads and checks a compressor object, resolved or partial (absent keys take their
/// key's default). Throws CompressorConfigError.
CompressorConfig parse_compressor(const nlohmann::json& options);

/// Checks what needs the model's tensor sizes (k ≤ d; k with per-tensor slices).
/// Throws CompressorConfigError.
void check_dimensions(const CompressorConfig& config,
                      const std::vector<Eigen::Index>& tensor_sizes);

/// The compressor for one message stream of a model with these tensor sizes: per-tensor
/// slices when per_tensor and there is more than one tensor; error feedback outermost.
std::unique_ptr<Compressor> build_compressor(const CompressorConfig& config,
                                             const std::vector<Eigen::Index>& tensor_sizes);

}  // namespace dlsim::models
