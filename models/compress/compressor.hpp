// A compressor maps a vector to a byte buffer and back (ALGORITHMS.md §1). The
// network is charged `bits` exactly; decode(encode(v)) equals, bit for bit, the
// quantized vector the sender keeps for its own bookkeeping.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include <Eigen/Dense>

namespace dlsim::models {

struct Encoded {
  std::vector<std::byte> bytes;
  std::uint64_t bits = 0;  // exact payload size; bytes.size() == ceil(bits / 8)
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  virtual Encoded encode(const Eigen::VectorXd& v, std::mt19937_64& rng) = 0;
  /// Decodes into `out`, resized to the encoded dimension.
  virtual void decode(const Encoded& message, Eigen::VectorXd& out) const = 0;
  /// Payload bits of a message of `dimension` coordinates, for models without math
  /// (`profile`), where nothing is really encoded.
  virtual std::uint64_t bits_for(Eigen::Index dimension) const = 0;
};

/// `none`: every coordinate as an IEEE-754 binary32 (32·d bits). decode returns the
/// float-rounded values.
class Fp32Compressor final : public Compressor {
 public:
  Encoded encode(const Eigen::VectorXd& v, std::mt19937_64& rng) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return 32 * std::uint64_t(dimension);
  }
};

}  // namespace dlsim::models
