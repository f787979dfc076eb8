// The compressor of a scenario's `algorithm.compressor` object (the resolved JSON:
// every key present, see sim/scenario/spec.cpp): parsed into a typed config, checked,
// and built into the whole chain ErrorFeedback(PerTensor(kind)).
//
// Parse errors name the offending key relative to the compressor object ("bits",
// "clip.value"); the simulator prefixes "algorithm.compressor.".
#pragma once

#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compress/quantizers.hpp"
#include "models/compress/sparsifiers.hpp"

namespace dlsim::models {

class CompressorConfigError : public std::invalid_argument {
 public:
  CompressorConfigError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

struct CompressorConfig {
  std::string kind = "none";  // none | fp16 | qsgd | lpc | terngrad | sign | top-k | random-k
  bool error_feedback = false;
  bool per_tensor = true;
  QuantizerOptions quantizer;   // qsgd, lpc, terngrad
  SparsityOptions sparsity;     // top-k, random-k
  bool scale_unbiased = false;  // random-k
};

/// The kind that sends fp32 values unchanged (algorithms that need uncompressed messages).
inline constexpr const char* kUncompressed = "none";

/// The kinds whose compressors are all-reducible (Compressor::all_reducible), in the order
/// of the key table.
std::vector<std::string> all_reducible_kinds();

/// Reads and checks the compressor object. Throws CompressorConfigError.
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
