// Compressor object → compressor chain (factory.hpp).
#include "models/compress/factory.hpp"

#include <cmath>

#include "models/compress/wrappers.hpp"

namespace dlsim::models {

namespace {

using nlohmann::json;

std::string describe(const json& value) {
  return value.dump();
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
        "clip", "must be a rule name or an object {\"kind\": rule, ...}; got " + describe(clip));
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
      throw CompressorConfigError("clip." + key, "must be a number; got " + describe(value));
    const double x = value.get<double>();
    if (key == "decay") {
      if (!(x >= 0 && x < 1)) throw CompressorConfigError("clip.decay", "must be in [0, 1)");
      q.decay = x;
    } else {
      if (!(x > 0 && std::isfinite(x)))
        throw CompressorConfigError("clip." + key,
                                    "must be a finite number > 0; got " + describe(value));
      q.clip_value = x;
    }
  }
  if (q.clip == ClipRule::fixed && !clip.contains("value"))
    throw CompressorConfigError("clip.value", "rule fixed needs a value (the range θ)");
}

std::int64_t read_bucket(const json& j) {
  if (!j.contains("bucket")) return 0;
  const auto b = j["bucket"].get<std::int64_t>();
  if (b < 1) throw CompressorConfigError("bucket", "must be >= 1; got " + std::to_string(b));
  return b;
}

void read_sparsity(const json& j, SparsityOptions& s) {
  const bool ratio = j.contains("ratio"), k = j.contains("k");
  if (ratio == k)
    throw CompressorConfigError(ratio ? "k" : "ratio",
                                "give exactly one of ratio (fraction dropped) and k (kept)");
  if (ratio) {
    s.ratio = j["ratio"].get<double>();
    if (!(s.ratio >= 0 && s.ratio < 1))
      throw CompressorConfigError("ratio", "must be in [0, 1); got " + describe(j["ratio"]));
  } else {
    s.k = j["k"].get<std::int64_t>();
    if (s.k < 1) throw CompressorConfigError("k", "must be >= 1; got " + std::to_string(s.k));
  }
}

}  // namespace

CompressorConfig parse_compressor(const json& j) {
  CompressorConfig c;
  c.kind = j.value("kind", std::string("none"));
  c.error_feedback = j.value("error_feedback", false);
  c.per_tensor = j.value("per_tensor", true);
  if (c.kind == "qsgd") {
    const auto levels = j.value("levels", std::int64_t(7));
    if (levels < 1 || levels > (std::int64_t(1) << 31) - 1)
      throw CompressorConfigError("levels",
                                  "must be in [1, 2^31 - 1]; got " + std::to_string(levels));
    const std::string coding = j.value("coding", std::string("fixed"));
    if (coding != "fixed" && coding != "elias")
      throw CompressorConfigError("coding", "must be fixed or elias; got \"" + coding + "\"");
    c.quantizer = qsgd_options(levels, read_bucket(j), coding == "elias", j.value("biased", false));
  } else if (c.kind == "lpc") {
    const json bits = j.value("bits", json(4));
    int b = 0;
    if (bits.is_string()) {
      if (bits.get<std::string>() != "auto")
        throw CompressorConfigError(
            "bits", "must be an integer in [2, 32] or \"auto\"; got " + describe(bits));
    } else if (bits.is_number_integer() ||
               (bits.is_number() && bits.get<double>() == std::floor(bits.get<double>()))) {
      const double x = bits.get<double>();
      if (x < 2 || x > 32)
        throw CompressorConfigError("bits",
                                    "must be in [2, 32] (or \"auto\"); got " + describe(bits));
      b = int(x);
    } else {
      throw CompressorConfigError(
          "bits", "must be an integer in [2, 32] or \"auto\"; got " + describe(bits));
    }
    QuantizerOptions q = lpc_options(b, ClipRule::max, 1.0, read_bucket(j));
    read_clip(j.value("clip", json("max")), q);
    c.quantizer = q;
  } else if (c.kind == "terngrad") {
    c.quantizer = terngrad_options();
  } else if (c.kind == "top-k" || c.kind == "random-k") {
    read_sparsity(j, c.sparsity);
    c.scale_unbiased = c.kind == "random-k" && j.value("unbiased", false);
  } else if (c.kind != "none" && c.kind != "fp16" && c.kind != "sign") {
    throw CompressorConfigError("kind", "unknown compressor \"" + c.kind + "\"");
  }
  return c;
}

std::vector<std::string> all_reducible_kinds() {
  std::vector<std::string> kinds;
  for (const char* kind :
       {"none", "fp16", "qsgd", "lpc", "terngrad", "sign", "top-k", "random-k"}) {
    json options = {{"kind", kind}};
    if (std::string(kind) == "top-k" || std::string(kind) == "random-k") options["k"] = 1;
    if (build_compressor(parse_compressor(options), {1})->all_reducible()) kinds.push_back(kind);
  }
  return kinds;
}

void check_dimensions(const CompressorConfig& c, const std::vector<Eigen::Index>& sizes) {
  if (c.kind != "top-k" && c.kind != "random-k") return;
  Eigen::Index total = 0;
  for (const auto size : sizes) total += size;
  if (c.sparsity.k > 0 && c.per_tensor && sizes.size() > 1)
    throw CompressorConfigError(
        "k", "k counts coordinates of the whole message, but per_tensor splits it into " +
                 std::to_string(sizes.size()) + " tensors; give ratio, or set per_tensor false");
  if (c.sparsity.k > total)
    throw CompressorConfigError("k", std::to_string(c.sparsity.k) + " exceeds the model's " +
                                         std::to_string(total) + " parameters");
}

std::unique_ptr<Compressor> build_compressor(const CompressorConfig& c,
                                             const std::vector<Eigen::Index>& sizes) {
  auto make_kind = [c]() -> std::unique_ptr<Compressor> {
    if (c.kind == "none") return std::make_unique<Fp32Compressor>();
    if (c.kind == "fp16") return std::make_unique<Fp16Compressor>();
    if (c.kind == "sign") return std::make_unique<SignCompressor>();
    if (c.kind == "qsgd" || c.kind == "lpc" || c.kind == "terngrad")
      return std::make_unique<StochasticQuantizer>(c.quantizer);
    if (c.kind == "top-k") return std::make_unique<TopKCompressor>(c.sparsity);
    if (c.kind == "random-k")
      return std::make_unique<RandomKCompressor>(c.sparsity, c.scale_unbiased);
    throw CompressorConfigError("kind", "unknown compressor \"" + c.kind + "\"");
  };
  std::unique_ptr<Compressor> chain = c.per_tensor && sizes.size() > 1
                                          ? std::make_unique<PerTensor>(make_kind, sizes)
                                          : make_kind();
  if (c.error_feedback) chain = std::make_unique<ErrorFeedback>(std::move(chain));
  return chain;
}

}  // namespace dlsim::models
