// Compressor `lpc` (docs/algorithms.md §1.1): the stochastic quantizer with b bits per
// coordinate (s = 2^(b−1) − 1 levels, or "auto": s = ⌈√n⌉) and a clip rule for θ.
// `bits` and `clip` take several forms, so their checks are here rather than in the key.
#include <cmath>

#include "models/compress/quantizers.hpp"
#include "models/compress/registry.hpp"

namespace dlsim::models {
namespace lpc_compressor {

using namespace spec;
using nlohmann::json;

std::vector<Key> keys() {
  return {
      defaulted("bits", any(), 4,
                "Bits per coordinate (1 sign + bits-1 level bits; 32 per bucket + d*bits "
                "in all): an integer in [2, 32], or \"auto\" (s = "
                "ceil(sqrt(n)), bits = 1 + ceil(log2(s + 1)), n = bucket size or message "
                "length)."),
      defaulted("clip", any(), "max",
                "Range rule: \"max\" (theta = ||v||_inf, unbiased), \"norm\" (||v||_2, "
                "unbiased), or an object {\"kind\": \"fixed\", \"value\": c} (theta = c), "
                "{\"kind\": \"std\", \"factor\": c = 2.5} (min(||v||_inf, c std(v))), "
                "{\"kind\": \"adaptive\", \"factor\": c = 1, \"decay\": 0.9} (c times "
                "an EMA of ||v||_inf). A bare string is {\"kind\": string}."),
      bucket_key(),
  };
}

ClipRule clip_rule(const std::string& name, const std::string& key) {
  if (name == "max") return ClipRule::max;
  if (name == "norm") return ClipRule::norm;
  if (name == "fixed") return ClipRule::fixed;
  if (name == "std") return ClipRule::std;
  if (name == "adaptive") return ClipRule::adaptive;
  throw CompressorConfigError(
      key, "must be one of max, norm, fixed, std, adaptive; got \"" + name + "\"");
}

// `clip`: a rule name, or {"kind": rule, "value" | "factor": c, "decay": β}.
void read_clip(const json& clip, QuantizerOptions& q) {
  if (clip.is_string()) {
    q.clip = clip_rule(clip.get<std::string>(), "clip");
    if (q.clip == ClipRule::fixed)
      throw CompressorConfigError("clip",
                                  "rule fixed needs a value: {\"kind\": \"fixed\", \"value\": c}");
    q.clip_value = q.clip == ClipRule::std ? 2.5 : 1.0;
    return;
  }
  if (!clip.is_object() || !clip.contains("kind") || !clip["kind"].is_string())
    throw CompressorConfigError(
        "clip", "must be a rule name or an object {\"kind\": rule, ...}; got " + clip.dump());
  q.clip = clip_rule(clip["kind"].get<std::string>(), "clip.kind");
  q.clip_value = q.clip == ClipRule::std ? 2.5 : 1.0;
  const char* allowed = q.clip == ClipRule::fixed                                   ? "value"
                        : (q.clip == ClipRule::std || q.clip == ClipRule::adaptive) ? "factor"
                                                                                    : nullptr;
  for (const auto& [key, value] : clip.items()) {
    if (key == "kind") continue;
    const bool ok = (allowed && key == allowed) || (key == "decay" && q.clip == ClipRule::adaptive);
    if (!ok)
      throw CompressorConfigError("clip." + key,
                                  "not a key of clip rule " + clip["kind"].get<std::string>());
    if (!value.is_number())
      throw CompressorConfigError("clip." + key, "must be a number; got " + value.dump());
    const double x = value.get<double>();
    if (key == "decay") {
      if (!(x >= 0 && x < 1)) throw CompressorConfigError("clip.decay", "must be in [0, 1)");
      q.decay = x;
    } else {
      if (!(x > 0 && std::isfinite(x)))
        throw CompressorConfigError("clip." + key,
                                    "must be a finite number > 0; got " + value.dump());
      q.clip_value = x;
    }
  }
  if (q.clip == ClipRule::fixed && !clip.contains("value"))
    throw CompressorConfigError("clip.value", "rule fixed needs a value (the range θ)");
}

// `bits`: an integer in [2, 32], or "auto" (0).
int read_bits(const json& bits) {
  if (bits.is_string()) {
    if (bits.get<std::string>() != "auto")
      throw CompressorConfigError("bits",
                                  "must be an integer in [2, 32] or \"auto\"; got " + bits.dump());
    return 0;
  }
  if (bits.is_number_integer() ||
      (bits.is_number() && bits.get<double>() == std::floor(bits.get<double>()))) {
    const double x = bits.get<double>();
    if (x < 2 || x > 32)
      throw CompressorConfigError("bits", "must be in [2, 32] (or \"auto\"); got " + bits.dump());
    return int(x);
  }
  throw CompressorConfigError("bits",
                              "must be an integer in [2, 32] or \"auto\"; got " + bits.dump());
}

std::shared_ptr<const CompressorOptions> read(const json& j) {
  const std::vector<Key> k = keys();
  const int bits = read_bits(read_key(j, k, "bits"));
  QuantizerOptions q = lpc_options(bits, ClipRule::max, 1.0, read_bucket(j));
  read_clip(read_key(j, k, "clip"), q);
  return std::make_shared<QuantizerKindOptions>(q);
}

const CompressorRegistration registered{{
    .name = "lpc",
    .doc = "Stochastic quantizer with clipping (docs/algorithms.md 1.1): theta from the clip rule, "
           "clip to +-theta, unbiased rounding to s = 2^(bits-1) - 1 levels: 32 per bucket + "
           "d*bits bits.",
    .bits = "32 per bucket + d*bits",
    .keys = keys(),
    .read = read,
}};

}  // namespace lpc_compressor
}  // namespace dlsim::models
