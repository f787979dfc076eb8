// Compressor `qsgd` (Alistarh, Grubic, Li, Tomioka, Vojnovic, "QSGD: Communication-
// Efficient SGD via Gradient Quantization and Encoding", NeurIPS 2017; docs/algorithms.md
// §1): the stochastic quantizer with the norm rule θ = ‖v‖₂, fixed or Elias coding.
#include "models/compress/quantizers.hpp"
#include "models/compress/registry.hpp"

namespace dlsim::models {
namespace qsgd_compressor {

using namespace spec;

std::vector<Key> keys() {
  return {
      defaulted("levels", integer().ge(1).le(2147483647), 7, "Magnitude levels s."),
      bucket_key(),
      defaulted("coding", one_of({"fixed", "elias"}), "fixed",
                "fixed: a sign bit and a ceil(log2(s+1))-bit level per coordinate; elias: "
                "Elias-omega codes of (gap, sign, level) per nonzero, a data-dependent "
                "size (profile models, which encode nothing, are charged the fixed-code "
                "size)."),
      defaulted("biased", boolean(), false,
                "Scale by 1/(1 + min(n/s^2, sqrt(n)/s)) (contraction variant)."),
  };
}

std::shared_ptr<const CompressorOptions> read(const nlohmann::json& j) {
  const std::vector<Key> k = keys();
  const auto levels = read_key(j, k, "levels").get<std::int64_t>();
  const std::int64_t bucket = read_bucket(j);
  const bool elias = read_key(j, k, "coding").get<std::string>() == "elias";
  const bool biased = read_key(j, k, "biased").get<bool>();
  return std::make_shared<QuantizerKindOptions>(qsgd_options(levels, bucket, elias, biased));
}

const CompressorRegistration registered{{
    .name = "qsgd",
    .doc = "QSGD (Alistarh et al. 2017): theta = ||v||_2 per bucket, unbiased stochastic "
           "rounding to s levels. Fixed coding: 32 per bucket + d(1 + ceil(log2(s+1))) bits; "
           "elias: 32 per bucket + Elias-omega (gap, sign, level) of nonzeros (profile models "
           "are charged the fixed-code size).",
    .bits = "32 per bucket + d(1 + ceil(log2(s+1)))",
    .keys = keys(),
    .read = read,
}};

}  // namespace qsgd_compressor
}  // namespace dlsim::models
