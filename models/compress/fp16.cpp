// `fp16`: each coordinate as a little-endian IEEE-754 binary16, rounded to nearest
// even directly from double (no double rounding through float). Magnitudes ≥ 65504
// (and ±inf) saturate to ±65504, the largest finite half: an inf would turn an error
// feedback residual into inf − inf = NaN. Below 2⁻²⁴·½ values round to ±0.
#include <bit>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/compress/quantizers.hpp"

namespace dlsim::models {

std::uint16_t to_half_bits(double x) {
  const auto bits = std::bit_cast<std::uint64_t>(x);
  const auto sign = std::uint16_t((bits >> 48) & 0x8000);
  if (std::isnan(x)) return 0x7e00;
  const double a = std::fabs(x);
  if (a >= 65504.0) return sign | 0x7bff;
  if (a < 0x1p-14) {  // subnormal: units of 2^-24; adding 2^52 rounds to nearest even
    return sign | std::uint16_t((a * 0x1p24 + 0x1p52) - 0x1p52);
  }
  // normal: keep the top 10 of 52 mantissa bits, round to nearest even on the other 42
  const int exponent = int((bits >> 52) & 0x7ff) - 1023;  // in [-14, 15]
  const std::uint64_t mantissa = bits & ((std::uint64_t(1) << 52) - 1);
  const std::uint64_t kept = mantissa >> 42, rest = mantissa & ((std::uint64_t(1) << 42) - 1);
  const std::uint64_t half = std::uint64_t(1) << 41;
  const std::uint64_t up = (rest + (half - 1) + (kept & 1)) >> 42;  // > half, or = half and odd
  // a carry out of the mantissa moves to the next exponent, as it should
  return sign | std::uint16_t((std::uint64_t(exponent + 15) << 10) + kept + up);
}

namespace {

// Every binary16 value as a double, built once.
const std::vector<double>& half_table() {
  static const std::vector<double> table = [] {
    std::vector<double> t(65536);
    for (std::uint32_t h = 0; h < 65536; ++h) {
      const double sign = (h & 0x8000) ? -1.0 : 1.0;
      const int exponent = int((h >> 10) & 0x1f);
      const int mantissa = int(h & 0x3ff);
      if (exponent == 0)
        t[h] = sign * std::ldexp(double(mantissa), -24);
      else if (exponent == 31)
        t[h] = mantissa ? std::nan("") : sign * HUGE_VAL;
      else
        t[h] = sign * std::ldexp(double(1024 + mantissa), exponent - 25);
    }
    return t;
  }();
  return table;
}

}  // namespace

double from_half_bits(std::uint16_t h) {
  return half_table()[h];
}

void Fp16Compressor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/,
                                 Encoded& message) {
  message.dimension = v.size();
  message.bits = bits_for(v.size());
  message.bytes.resize(2 * std::size_t(v.size()));
  std::byte* out = message.bytes.data();
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    const std::uint16_t h = to_half_bits(v(k));
    std::memcpy(out + 2 * k, &h, 2);
  }
}

void Fp16Compressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check_message_size(message, "fp16");
  if (message.bits != bits_for(message.dimension))
    throw std::invalid_argument("fp16 decode: " + std::to_string(message.bits) + " bits for " +
                                std::to_string(message.dimension) + " coordinates");
  out.resize(message.dimension);
  const std::byte* in = message.bytes.data();
  const double* table = half_table().data();
  for (Eigen::Index k = 0; k < message.dimension; ++k) {
    std::uint16_t h;
    std::memcpy(&h, in + 2 * k, 2);
    out(k) = table[h];
  }
}

namespace fp16_compressor {

const CompressorRegistration registered{{
    .name = "fp16",
    .doc = "IEEE half, round to nearest even, saturating at +-65504: 16d bits. All-reducible.",
    .bits = "16d",
    .read = [](const nlohmann::json&) { return std::make_shared<NoOptions<Fp16Compressor>>(); },
}};

}  // namespace fp16_compressor

}  // namespace dlsim::models
