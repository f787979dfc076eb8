// The LPC stochastic quantizer (docs/algorithms.md §1.1) and its qsgd/terngrad settings:
// per bucket a range θ from the clip rule, clipping to ±θ, unbiased stochastic
// rounding to s magnitude levels, sign-magnitude fields or Elias-omega codes.
#include <algorithm>
#include <bit>
#include <cfloat>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"
#include "models/compress/quantizers.hpp"
#include "models/compress/random_bits.hpp"

namespace dlsim::models {

namespace {

/// The smallest binary32 ≥ θ ≥ 0, saturated at FLT_MAX.
float round_up_to_float(double theta) {
  if (!(theta < double(FLT_MAX))) return FLT_MAX;
  float f = float(theta);
  if (double(f) < theta) f = std::nextafter(f, FLT_MAX);
  return f;
}

double max_abs(const double* v, Eigen::Index n) {
  return n == 0 ? 0.0 : Eigen::Map<const Eigen::VectorXd>(v, n).cwiseAbs().maxCoeff();
}

/// Population standard deviation (about the mean, divided by n), two passes.
double population_std(const double* v, Eigen::Index n) {
  const Eigen::Map<const Eigen::VectorXd> x(v, n);
  const double mean = x.mean();
  return std::sqrt((x.array() - mean).square().sum() / double(n));
}

constexpr double kTwoToMinus32 = 0x1p-32;

// fields[k] = sign bit (1 = negative, 0 when ξ = 0) | ξ_k << 1, for one bucket of range θ.
// A branch-free loop over 32-bit integers (s < 2^31, so ξ << 1 fits). On x86-64 an AVX2
// clone is chosen at load time when the CPU has it (the same IEEE operations, no FMA
// contraction in ISO C++ mode: identical results, 4 coordinates per instruction).
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)  // TSan instruments the ifunc resolver: crash at load
__attribute__((target_clones("avx2", "default")))
#endif
void quantize_levels(const double* x, const std::uint32_t* u, Eigen::Index n, double theta,
                     std::int64_t s, std::uint32_t* fields) {
  if (!(theta > 0)) {
    std::fill(fields, fields + n, 0u);
    return;
  }
  const double levels = double(s);
  const auto top = std::int32_t(s);
  for (Eigen::Index k = 0; k < n; ++k) {
    const double scaled = levels * std::min(std::fabs(x[k]), theta) / theta;  // in [0, s]
    const auto floor_level = std::int32_t(scaled);  // truncation = floor for scaled ≥ 0
    const double fraction = scaled - double(floor_level);
    // double(u) via signed int32, which vectorizes: (u − 2^31) + 2^31, exact
    const double uniform =
        (double(std::int32_t(u[k] ^ 0x80000000u)) + 2147483648.0) * kTwoToMinus32;
    const std::int32_t level = std::min(floor_level + (uniform < fraction ? 1 : 0), top);
    const std::int32_t negative = (x[k] < 0.0) & (level > 0);
    fields[k] = std::uint32_t(negative) | (std::uint32_t(level) << 1);
  }
}

}  // namespace

std::int64_t ceil_sqrt(std::int64_t n) {
  if (n <= 0) return 0;
  auto r = std::int64_t(std::sqrt(double(n)));
  while (r * r > n) --r;
  while (r * r < n) ++r;
  return r;
}

QuantizerOptions lpc_options(int bits, ClipRule clip, double clip_value, std::int64_t bucket) {
  QuantizerOptions o;
  o.levels = bits == 0 ? 0 : (std::int64_t(1) << (bits - 1)) - 1;
  o.clip = clip;
  o.clip_value = clip_value;
  o.bucket = bucket;
  return o;
}

QuantizerOptions qsgd_options(std::int64_t levels, std::int64_t bucket, bool elias, bool biased) {
  QuantizerOptions o;
  o.levels = levels;
  o.clip = ClipRule::norm;
  o.bucket = bucket;
  o.elias = elias;
  o.biased = biased;
  return o;
}

QuantizerOptions terngrad_options() {
  QuantizerOptions o;
  o.levels = 1;
  o.clip = ClipRule::std;
  o.clip_value = 2.5;
  return o;
}

StochasticQuantizer::StochasticQuantizer(QuantizerOptions options) : options_(options) {
  if (options_.levels < 0 || options_.levels > (std::int64_t(1) << 31) - 1)
    throw std::invalid_argument("quantizer: levels must be in [1, 2^31 - 1] (or 0 for auto)");
  if (options_.bucket < 0) throw std::invalid_argument("quantizer: bucket must be >= 1");
}

Eigen::Index StochasticQuantizer::bucket_length(Eigen::Index dimension) const {
  return options_.bucket > 0 ? options_.bucket : std::max<Eigen::Index>(dimension, 1);
}

std::int64_t StochasticQuantizer::levels_for(Eigen::Index dimension) const {
  if (options_.levels > 0) return options_.levels;
  return std::max<std::int64_t>(1, ceil_sqrt(options_.bucket > 0 ? options_.bucket : dimension));
}

std::uint64_t StochasticQuantizer::bits_for(Eigen::Index dimension) const {
  if (dimension == 0) return 0;
  const auto d = std::uint64_t(dimension);
  const auto n = std::uint64_t(bucket_length(dimension));
  const std::uint64_t buckets = (d + n - 1) / n;
  const int field = 1 + ceil_log2(std::uint64_t(levels_for(dimension)) + 1);
  return 32 * buckets + d * std::uint64_t(field);
}

float StochasticQuantizer::bucket_range(const double* v, Eigen::Index n, std::size_t bucket) {
  double theta = 0.0;
  switch (options_.clip) {
    case ClipRule::max:
      theta = max_abs(v, n);
      break;
    case ClipRule::norm:
      theta = Eigen::Map<const Eigen::VectorXd>(v, n).norm();
      break;
    case ClipRule::fixed:
      theta = options_.clip_value;
      break;
    case ClipRule::std:
      theta = std::min(max_abs(v, n), options_.clip_value * population_std(v, n));
      break;
    case ClipRule::adaptive: {
      const double m = max_abs(v, n);
      if (ema_.size() <= bucket) ema_.resize(bucket + 1, -1.0);
      ema_[bucket] =
          ema_[bucket] < 0 ? m : options_.decay * ema_[bucket] + (1 - options_.decay) * m;
      theta = options_.clip_value * ema_[bucket];
      break;
    }
  }
  return round_up_to_float(theta);
}

void StochasticQuantizer::encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng,
                                      Encoded& message) {
  const Eigen::Index d = v.size();
  message.dimension = d;
  message.bits = 0;
  message.bytes.clear();
  if (d == 0) return;
  const Eigen::Index n = bucket_length(d);
  const std::size_t buckets = std::size_t((d + n - 1) / n);
  const std::int64_t s = levels_for(d);
  const int level_bits = ceil_log2(std::uint64_t(s) + 1);

  ranges_.resize(buckets);
  for (std::size_t b = 0; b < buckets; ++b) {
    const Eigen::Index begin = Eigen::Index(b) * n;
    ranges_[b] = bucket_range(v.data() + begin, std::min(n, d - begin), b);
  }
  draw_uniform32(rng, std::size_t(d), uniform_);

  fields_.resize(std::size_t(d));
  for (std::size_t b = 0; b < buckets; ++b) {
    const Eigen::Index begin = Eigen::Index(b) * n, end = std::min(d, begin + n);
    quantize_levels(v.data() + begin, uniform_.data() + begin, end - begin, double(ranges_[b]), s,
                    fields_.data() + begin);
  }

  BitWriter& out = writer_;
  out.reset(options_.elias ? 64 * buckets + 4 * std::uint64_t(d) : bits_for(d));
  if (!options_.elias) {
    for (std::size_t b = 0; b < buckets; ++b) {
      const Eigen::Index begin = Eigen::Index(b) * n, end = std::min(d, begin + n);
      out.put(std::bit_cast<std::uint32_t>(ranges_[b]), 32);
      out.put_fields(fields_.data() + begin, std::size_t(end - begin), 1 + level_bits);
    }
  } else {
    for (float theta : ranges_) out.put(std::bit_cast<std::uint32_t>(theta), 32);
    std::int64_t previous_nonzero = -1;
    for (Eigen::Index k = 0; k < d; ++k) {
      const std::uint32_t field = fields_[std::size_t(k)];
      if (field == 0) continue;
      out.put_elias_omega(std::uint64_t(k - previous_nonzero));
      out.put(field & 1, 1);
      out.put_elias_omega(field >> 1);
      previous_nonzero = k;
    }
  }
  message.bits = out.bits();
  out.finish_into(message.bytes);
}

void StochasticQuantizer::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check_message_size(message, "quantizer");
  const Eigen::Index d = message.dimension;
  if (!options_.elias && message.bits != bits_for(d))
    throw std::invalid_argument("quantizer decode: " + std::to_string(message.bits) + " bits for " +
                                std::to_string(d) + " coordinates");
  out.resize(d);
  if (d == 0) return;
  if (options_.elias) out.setZero();
  const Eigen::Index n = bucket_length(d);
  const std::size_t buckets = std::size_t((d + n - 1) / n);
  const std::int64_t s = levels_for(d);
  const int level_bits = ceil_log2(std::uint64_t(s) + 1);
  const double levels = double(s);
  auto contraction = [&](Eigen::Index length) {
    if (!options_.biased) return 1.0;
    const double m = double(length);
    return 1.0 / (1.0 + std::min(m / (levels * levels), std::sqrt(m) / levels));
  };

  BitReader in(message.bytes, message.bits);
  double* y = out.data();
  if (!options_.elias) {
    thread_local std::vector<double> values;  // scratch: decode is const and may run anywhere
    for (std::size_t b = 0; b < buckets; ++b) {
      const Eigen::Index begin = Eigen::Index(b) * n, end = std::min(d, begin + n);
      const double theta = double(std::bit_cast<float>(std::uint32_t(in.get(32))));
      const double beta = contraction(end - begin);
      const std::size_t fields = std::size_t(2) << level_bits;
      if (s < 4096 && fields < 8 * std::size_t(end - begin)) {
        // tabulate ±θ·ξ/s·β (the same expression) by field: no branch on the random sign
        values.resize(fields);
        for (std::size_t f = 0; f < fields; ++f) {
          const double magnitude =
              theta * double(std::min<std::size_t>(f >> 1, std::size_t(s))) / levels * beta;
          values[f] = (f & 1) ? -magnitude : magnitude;
        }
        for (Eigen::Index k = begin; k < end; ++k) y[k] = values[in.get(1 + level_bits)];
        continue;
      }
      for (Eigen::Index k = begin; k < end; ++k) {
        const std::uint64_t field = in.get(1 + level_bits);
        const double magnitude = theta * double(field >> 1) / levels * beta;
        y[k] = (field & 1) ? -magnitude : magnitude;
      }
    }
    return;
  }
  thread_local std::vector<double> theta;  // scratch, as above
  theta.resize(buckets);
  for (auto& t : theta) t = double(std::bit_cast<float>(std::uint32_t(in.get(32))));
  std::int64_t k = -1;
  while (in.remaining() > 0) {
    k += std::int64_t(in.get_elias_omega());
    const bool negative = in.get_bit();
    const std::uint64_t level = in.get_elias_omega();
    if (k >= d || level > std::uint64_t(s))
      throw std::invalid_argument("qsgd decode: coordinate or level out of range");
    const std::size_t b = std::size_t(k / n);
    const Eigen::Index begin = Eigen::Index(b) * n;
    const double magnitude =
        theta[b] * double(level) / levels * contraction(std::min(n, d - begin));
    y[k] = negative ? -magnitude : magnitude;
  }
}

spec::Key bucket_key() {
  return spec::optional("bucket", spec::integer().ge(1),
                        "Coordinates per bucket, each with its own 32-bit range (absent: the "
                        "whole message or tensor is one bucket).");
}

std::int64_t read_bucket(const nlohmann::json& j) {
  const nlohmann::json bucket = read_key(j, {bucket_key()}, "bucket");
  return bucket.is_null() ? 0 : bucket.get<std::int64_t>();
}

}  // namespace dlsim::models
