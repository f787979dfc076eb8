// The compressor registry (spec/registry.hpp): every compressor kind declares, from its
// own .cpp in models/compress/, its name, its doc, the keys of its own options (types,
// ranges, defaults: the only place they are written), and `read`, which turns the kind's
// object into typed options once, when the scenario is loaded, with the cross-key checks
// the key table cannot express. The options then build one compressor per message
// stream. The common keys (kind, error_feedback, per_tensor) are in factory.hpp; the
// scenario's compressor object (sim/scenario/spec_compressor.cpp) is built from both.
#pragma once

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compress/compressor.hpp"
#include "spec/key_error.hpp"
#include "spec/key_table.hpp"
#include "spec/registry.hpp"

namespace dlsim::models {

/// A bad compressor option; `key` is relative to the compressor object ("bits",
/// "clip.value"), the simulator prefixes "algorithm.compressor.".
class CompressorConfigError : public spec::KeyError {
 public:
  using KeyError::KeyError;
};

/// One kind's typed options, read once from the scenario.
class CompressorOptions {
 public:
  virtual ~CompressorOptions() = default;
  /// A new compressor of this kind, for one message stream (or one tensor of it).
  virtual std::unique_ptr<Compressor> build() const = 0;
  /// Checks what needs the model's tensor sizes (k <= d); `per_tensor`: each tensor is
  /// compressed separately. Throws CompressorConfigError. Default: nothing to check.
  virtual void check_dimensions(const std::vector<Eigen::Index>& /*tensor_sizes*/,
                                bool /*per_tensor*/) const {}
  /// Scratch one instance keeps between messages of `message_size` coordinates, in
  /// message-sized vectors of doubles (the memory estimate, sim/run/memory_estimate.hpp);
  /// none by default.
  virtual double scratch_vectors(std::int64_t /*message_size*/) const { return 0; }
};

/// The options of a kind without options: builds a default-constructed `C`.
template <class C>
class NoOptions final : public CompressorOptions {
 public:
  std::unique_ptr<Compressor> build() const override { return std::make_unique<C>(); }
};

struct CompressorInfo {
  std::string name;
  std::string doc;   // one paragraph: paper, rule, bits on the wire
  std::string bits;  // bits per message of d coordinates, e.g. "32d" (the kind key's doc)
  /// The keys this kind accepts besides the common ones.
  std::vector<spec::Key> keys;
  /// The kind's object (resolved, or partial: absent keys take their key's default) ->
  /// typed options. Throws CompressorConfigError naming the key.
  std::function<std::shared_ptr<const CompressorOptions>(const nlohmann::json& object)> read;
  /// A smallest valid object of the kind's own keys (e.g. {"k": 1} for a kind with a
  /// required choice), for all_reducible_kinds() and the registry test.
  nlohmann::json example = nlohmann::json::object();
};

using CompressorRegistry = spec::Registry<CompressorInfo>;
using CompressorRegistration = spec::Registration<CompressorInfo>;

/// The value of key `name` (one of `keys`) of `object`, or its default when absent,
/// checked against the key's type and range (partial objects are not validated by the
/// scenario loader). Throws CompressorConfigError(name).
nlohmann::json read_key(const nlohmann::json& object, const std::vector<spec::Key>& keys,
                        const std::string& name);

}  // namespace dlsim::models
