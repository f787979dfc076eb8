// `none`: each coordinate as a little-endian IEEE-754 binary32, 4 bytes, 32 bits on the
// wire. decode(encode(v)) == v rounded to float (static_cast<float>), exactly.
#include <bit>
#include <stdexcept>
#include <string>

#include "models/compress/compressor.hpp"

namespace dlsim::models {

Encoded Fp32Compressor::encode(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/) {
  Encoded message;
  message.bytes.resize(4 * std::size_t(v.size()));
  message.bits = bits_for(v.size());
  std::byte* out = message.bytes.data();
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    const auto word = std::bit_cast<std::uint32_t>(static_cast<float>(v(k)));
    for (int j = 0; j < 4; ++j) *out++ = std::byte((word >> (8 * j)) & 0xffu);
  }
  return message;
}

void Fp32Compressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  if (message.bytes.size() % 4 != 0 || message.bits != 8 * message.bytes.size()) {
    throw std::invalid_argument("fp32 decode: malformed message (" +
                                std::to_string(message.bytes.size()) + " bytes, " +
                                std::to_string(message.bits) + " bits)");
  }
  const auto d = Eigen::Index(message.bytes.size() / 4);
  out.resize(d);
  const std::byte* in = message.bytes.data();
  for (Eigen::Index k = 0; k < d; ++k) {
    std::uint32_t word = 0;
    for (int j = 0; j < 4; ++j) word |= std::uint32_t(*in++) << (8 * j);
    out(k) = double(std::bit_cast<float>(word));
  }
}

}  // namespace dlsim::models
