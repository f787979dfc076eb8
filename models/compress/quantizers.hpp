// Quantizers: every coordinate is sent, with fewer bits (docs/algorithms.md §1).
//  - fp16: IEEE binary16, round to nearest even; saturating (|v| ≥ 65504 → ±65504,
//    so a residual never becomes inf − inf = NaN); 16 bits per coordinate.
//  - sign: (‖v‖₁/d)·sgn(v) with sgn(0) = +1 (Bernstein et al., signSGD, ICML 2018;
//    scaled as in Karimireddy et al., EF-SGD, ICML 2019); 32 + d bits.
//  - StochasticQuantizer: the LPC quantizer of docs/algorithms.md §1.1, of which qsgd
//    (Alistarh et al., NeurIPS 2017: norm rule, optional Elias coding and biased scaling)
//    and terngrad (Wen et al., NeurIPS 2017: s = 1, std clipping at 2.5σ) are settings.
#pragma once

#include <cstdint>
#include <vector>

#include "models/compress/bit_stream.hpp"
#include "models/compress/compressor.hpp"
#include "models/compress/registry.hpp"

namespace dlsim::models {

class Fp16Compressor final : public Compressor {
 public:
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return 16 * std::uint64_t(dimension);
  }
  bool unbiased() const override { return false; }  // deterministic rounding
  bool all_reducible() const override { return true; }
};
static_assert(check_compressor<Fp16Compressor>());

/// binary16 bits of x: round to nearest even, saturating at ±65504, NaN → quiet NaN.
std::uint16_t to_half_bits(double x);
double from_half_bits(std::uint16_t h);

class SignCompressor final : public Compressor {
 public:
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return dimension == 0 ? 0 : 32 + std::uint64_t(dimension);
  }
  bool unbiased() const override { return false; }
};
static_assert(check_compressor<SignCompressor>());

/// How θ, the range of a bucket, is chosen (docs/algorithms.md §1.1).
enum class ClipRule {
  max,    // θ = ‖v‖∞ (unbiased)
  norm,   // θ = ‖v‖₂ (unbiased; QSGD)
  fixed,  // θ = value
  std,    // θ = min(‖v‖∞, factor·std(v)), std about the mean, divided by n (TernGrad)
  adaptive,  // θ = factor·m, m = EMA of ‖v‖∞ per bucket position: m ← decay·m + (1−decay)‖v‖∞
             // (the first message sets m = ‖v‖∞)
};

struct QuantizerOptions {
  /// Magnitude levels s ≥ 1; 0 = auto: s = ⌈√n⌉ for n coordinates per bucket.
  std::int64_t levels = 0;
  ClipRule clip = ClipRule::max;
  double clip_value = 1.0;  // θ for `fixed`, the factor for `std` and `adaptive`
  double decay = 0.9;       // `adaptive` only
  std::int64_t bucket = 0;  // coordinates per bucket (own θ each); 0 = the whole message
  bool elias = false;       // Elias-omega coding of (gap, sign, level) of nonzeros
  bool biased = false;      // scale outputs by 1/(1 + min(n/s², √n/s)) (QSGD contraction)
};

/// lpc with b bits: s = 2^(b−1) − 1 (b = 0: auto).
QuantizerOptions lpc_options(int bits, ClipRule clip, double clip_value, std::int64_t bucket);
/// qsgd with s levels: the norm rule.
QuantizerOptions qsgd_options(std::int64_t levels, std::int64_t bucket, bool elias, bool biased);
/// terngrad: s = 1, θ = min(‖v‖∞, 2.5·std(v)).
QuantizerOptions terngrad_options();

/// Per bucket of n coordinates: θ (binary32, the smallest float ≥ the rule's θ,
/// saturated at FLT_MAX); c_k = sgn(v_k)·min(|v_k|, θ); ξ_k = ⌊s|c_k|/θ⌋ + [u_k < frac]
/// (u_k: random_bits.hpp); out_k = sgn(v_k)·θ·ξ_k/s (θ = 0: out = 0).
/// Fixed coding, per bucket: θ (32 bits), then per coordinate a sign bit (1 = negative,
/// 0 when ξ = 0) and ξ in ⌈log2(s+1)⌉ bits: 32·⌈d/n⌉ + d(1 + ⌈log2(s+1)⌉) bits.
/// Elias coding: every bucket's θ, then per nonzero ω(gap) (gap = index − previous
/// nonzero's index, the first counted from −1), a sign bit and ω(ξ); bits_for charges
/// the fixed-code size (the actual size depends on the data).
class StochasticQuantizer final : public Compressor {
 public:
  explicit StochasticQuantizer(QuantizerOptions options);

  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override;
  bool unbiased() const override {
    return !options_.biased && (options_.clip == ClipRule::max || options_.clip == ClipRule::norm);
  }
  bool fixed_size() const override { return !options_.elias; }

  const QuantizerOptions& options() const { return options_; }
  /// The levels s used for a message of `dimension` coordinates.
  std::int64_t levels_for(Eigen::Index dimension) const;

 private:
  Eigen::Index bucket_length(Eigen::Index dimension) const;
  float bucket_range(const double* v, Eigen::Index n, std::size_t bucket_index);

  QuantizerOptions options_;
  std::vector<double> ema_;             // adaptive: per bucket position
  std::vector<std::uint32_t> uniform_;  // reused buffers
  std::vector<float> ranges_;
  std::vector<std::uint32_t> fields_;
  BitWriter writer_;
};
static_assert(check_compressor<StochasticQuantizer>());

/// ⌈√n⌉ computed exactly in integers.
std::int64_t ceil_sqrt(std::int64_t n);

/// The typed options of qsgd, lpc and terngrad (registered in qsgd.cpp, lpc.cpp,
/// terngrad.cpp): a StochasticQuantizer setting.
class QuantizerKindOptions final : public CompressorOptions {
 public:
  explicit QuantizerKindOptions(QuantizerOptions quantizer) : quantizer(quantizer) {}
  std::unique_ptr<Compressor> build() const override {
    return std::make_unique<StochasticQuantizer>(quantizer);
  }
  QuantizerOptions quantizer;
};

/// The `bucket` key of qsgd and lpc, and its value (0: absent, the whole message).
spec::Key bucket_key();
std::int64_t read_bucket(const nlohmann::json& object);

}  // namespace dlsim::models
