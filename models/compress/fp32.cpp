// `none`: each coordinate as a little-endian IEEE-754 binary32, 4 bytes, 32 bits on the
// wire. decode(encode(v)) == v rounded to float (static_cast<float>), exactly.
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/compress/compressor.hpp"
#include "models/compress/registry.hpp"

namespace dlsim::models {

void check_message_size(const Encoded& message, const char* kind) {
  if (message.bytes.size() != (message.bits + 7) / 8 || message.dimension < 0) {
    throw std::invalid_argument(std::string(kind) + " decode: malformed message (" +
                                std::to_string(message.bytes.size()) + " bytes, " +
                                std::to_string(message.bits) + " bits, dimension " +
                                std::to_string(message.dimension) + ")");
  }
}

void Fp32Compressor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/,
                                 Encoded& message) {
  message.dimension = v.size();
  message.bytes.resize(4 * std::size_t(v.size()));
  message.bits = bits_for(v.size());
  std::byte* out = message.bytes.data();
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    const auto word = std::bit_cast<std::uint32_t>(static_cast<float>(v(k)));
    std::memcpy(out + 4 * k, &word, 4);  // little-endian hosts (bit_stream.hpp checks)
  }
}

void Fp32Compressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check_message_size(message, "fp32");
  if (message.bits != bits_for(message.dimension)) {
    throw std::invalid_argument("fp32 decode: malformed message (" + std::to_string(message.bits) +
                                " bits for " + std::to_string(message.dimension) + " coordinates)");
  }
  const Eigen::Index d = message.dimension;
  out.resize(d);
  const std::byte* in = message.bytes.data();
  for (Eigen::Index k = 0; k < d; ++k) {
    float value;
    std::memcpy(&value, in + 4 * k, 4);
    out(k) = double(value);
  }
}

namespace fp32_compressor {

const CompressorRegistration registered{{
    .name = "none",
    .doc = "Uncompressed fp32: 32d bits. All-reducible.",
    .bits = "32d",
    .read = [](const nlohmann::json&) { return std::make_shared<NoOptions<Fp32Compressor>>(); },
}};

}  // namespace fp32_compressor

}  // namespace dlsim::models
