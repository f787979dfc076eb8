// `sign`: scale = ‖v‖₁/d as binary32 (round to nearest), then one bit per coordinate
// (1 = negative; sgn(0) = +1); out_k = ±scale. Wire: scale, then the sign bits packed
// 64 per little-endian word: 32 + d bits. An empty vector is an empty message.
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"
#include "models/compress/quantizers.hpp"

namespace dlsim::models {

void SignCompressor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/,
                                 Encoded& message) {
  const Eigen::Index d = v.size();
  message.dimension = d;
  message.bits = bits_for(d);
  if (d == 0) {
    message.bytes.clear();
    return;
  }
  const float scale = float(v.cwiseAbs().sum() / double(d));
  message.bytes.assign(((message.bits + 63) / 64) * 8, std::byte{0});
  std::byte* out = message.bytes.data();
  const auto scale_bits = std::bit_cast<std::uint32_t>(scale);
  std::memcpy(out, &scale_bits, 4);
  // Sign bits start at bit 32: word w of the bit array holds coordinates [64w, 64w + 64).
  const double* x = v.data();
  const Eigen::Index words = (d + 63) / 64;
  for (Eigen::Index w = 0; w < words; ++w) {
    const Eigen::Index begin = 64 * w, end = std::min(d, begin + 64);
    std::uint64_t bits = 0;
    for (Eigen::Index k = begin; k < end; ++k) bits |= std::uint64_t(x[k] < 0.0) << (k - begin);
    // write at byte offset 4 + 8w (unaligned; the buffer has room for whole words)
    const std::size_t at = 4 + 8 * std::size_t(w);
    const std::size_t room = std::min<std::size_t>(8, message.bytes.size() - at);
    std::memcpy(out + at, &bits, room);
  }
  message.bytes.resize((message.bits + 7) / 8);
}

void SignCompressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check_message_size(message, "sign");
  const Eigen::Index d = message.dimension;
  if (message.bits != bits_for(d))
    throw std::invalid_argument("sign decode: " + std::to_string(message.bits) + " bits for " +
                                std::to_string(d) + " coordinates");
  out.resize(d);
  if (d == 0) return;
  const std::byte* in = message.bytes.data();
  float scale;
  std::memcpy(&scale, in, 4);
  const double value[2] = {double(scale), -double(scale)};
  double* y = out.data();
  for (Eigen::Index w = 0; w * 64 < d; ++w) {
    const std::size_t at = 4 + 8 * std::size_t(w);
    std::uint64_t bits = 0;
    std::memcpy(&bits, in + at, std::min<std::size_t>(8, message.bytes.size() - at));
    const Eigen::Index begin = 64 * w, end = std::min(d, begin + 64);
    double* block = y + begin;
    for (Eigen::Index j = 0; j < end - begin; ++j) block[j] = value[(bits >> j) & 1];
  }
}

namespace sign_compressor {

const CompressorRegistration registered{{
    .name = "sign",
    .doc = "Scaled sign: (||v||_1/d) sgn(v), sgn(0) = +1: 32 + d bits.",
    .bits = "32 + d",
    .read = [](const nlohmann::json&) { return std::make_shared<NoOptions<SignCompressor>>(); },
}};

}  // namespace sign_compressor

}  // namespace dlsim::models
