// The keys of a compressor object (algorithm.compressor, algorithm.downlink_compressor;
// models/compress, ALGORITHMS.md §1): the kind, the bits it charges, and each kind's
// options. Part of the key table (spec.cpp).
#include "sim/scenario/compressor_keys.hpp"

namespace dlsim::sim::spec {

using nlohmann::json;

Object compressor_object() {
  // Compressors (models/compress, ALGORITHMS.md §1): the bits charged are those of the
  // real encoded message. Cross-key checks (clip, bits "auto", ratio xor k, k <= d) are in
  // models/compress/factory.cpp, called from to_scenario_algorithm.cpp and at run start.
  const Key bucket = optional("bucket", integer().ge(1),
                              "Coordinates per bucket, each with its own 32-bit range (absent: "
                              "the whole message or tensor is one bucket).");
  const std::vector<Key> sparsity = {
      optional("ratio", number().ge(0).lt(1),
               "Fraction of coordinates dropped: k = max(1, round(d(1 - ratio))). Give "
               "ratio or k."),
      optional("k", integer().ge(1),
               "Coordinates kept (at most the model's parameters; not with per_tensor on a "
               "model with several tensors). Give ratio or k."),
  };
  return with_kinds(
      kind_key("kind", "none",
               "How messages are encoded on the wire; bits per message of d coordinates: "
               "none 32d, fp16 16d, qsgd 32 per bucket + d(1 + ceil(log2(s+1))), lpc 32 per "
               "bucket + d*bits, terngrad 32 + 2d, sign 32 + d, top-k k(32 + ceil(log2 d)), "
               "random-k 32k + 64."),
      {defaulted("error_feedback", boolean(), false,
                 "Error feedback: e <- e + v; send q = C(e); e <- e - q (one residual per "
                 "message stream). Allowed on every kind; with none it feeds back fp32 "
                 "rounding."),
       defaulted("per_tensor", boolean(), true,
                 "Compress each tensor (layer) of the model separately and concatenate; "
                 "bits = sum. No effect on models with one tensor.")},
      {{"none", "Uncompressed fp32: 32d bits. All-reducible.", {}},
       {"fp16",
        "IEEE half, round to nearest even, saturating at +-65504: 16d bits. All-reducible.",
        {}},
       {"qsgd",
        "QSGD (Alistarh et al. 2017): theta = ||v||_2 per bucket, unbiased stochastic "
        "rounding to s levels. Fixed coding: 32 per bucket + d(1 + ceil(log2(s+1))) bits; "
        "elias: 32 per bucket + Elias-omega (gap, sign, level) of nonzeros (profile models "
        "are charged the fixed-code size).",
        {defaulted("levels", integer().ge(1).le(2147483647), 7, "Magnitude levels s."), bucket,
         defaulted("coding", one_of({"fixed", "elias"}), "fixed",
                   "fixed: a sign bit and a ceil(log2(s+1))-bit level per coordinate; elias: "
                   "Elias-omega codes of (gap, sign, level) per nonzero, a data-dependent "
                   "size (profile models, which encode nothing, are charged the fixed-code "
                   "size)."),
         defaulted("biased", boolean(), false,
                   "Scale by 1/(1 + min(n/s^2, sqrt(n)/s)) (contraction variant).")}},
       {"lpc",
        "Stochastic quantizer with clipping (ALGORITHMS.md 1.1): theta from the clip rule, "
        "clip to +-theta, unbiased rounding to s = 2^(bits-1) - 1 levels: 32 per bucket + "
        "d*bits bits.",
        {defaulted("bits", any(), 4,
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
         bucket}},
       {"terngrad",
        "TernGrad (Wen et al. 2017): clip to 2.5 std, theta = ||v||_inf, stochastic "
        "{-1, 0, 1}*theta: 32 + 2d bits.",
        {}},
       {"sign", "Scaled sign: (||v||_1/d) sgn(v), sgn(0) = +1: 32 + d bits.", {}},
       {"top-k",
        "The k largest |v_i| (ties: lower index first), as ascending indices and fp32 "
        "values: k(32 + ceil(log2 d)) bits.",
        sparsity},
       {"random-k",
        "k uniformly random coordinates; a 64-bit seed is sent instead of the indices: "
        "32k + 64 bits.",
        sparsity + std::vector<Key>{defaulted("unbiased", boolean(), false,
                                              "Scale the values by d/k (unbiased).")}}});
}

}  // namespace dlsim::sim::spec
