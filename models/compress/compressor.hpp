// A compressor maps a vector to a byte buffer and back (docs/algorithms.md §1). The
// network is charged `bits` exactly; decode(encode(v)) equals, bit for bit, the
// quantized vector the sender keeps for its own bookkeeping (error feedback decodes
// its own message to get it).
//
// Two faces of one contract (as for objectives):
//  - `CompressorCodec` (a C++20 concept, below) states what every compressor type
//    provides; each concrete type checks itself with static_assert(check_compressor<T>()).
//  - `Compressor` (the virtual base) is the type-erased holder the simulator stores: the
//    kind is chosen at run time from the scenario; one virtual call per message is
//    negligible next to the O(d) work of encoding it.
//
// Conventions shared by every kind:
//  - Random draws come only from the rng passed to encode (the caller derives streams
//    from (seed, purpose, node)); decode is deterministic and stateless.
//  - The receiver knows the message's dimension out of band (tensor shapes are fixed,
//    as in every training framework), so `Encoded::dimension` is not charged.
//  - Scales (θ, ‖v‖₁/d, ...) travel as IEEE binary32; the sender quantizes with the
//    float it sends, so both sides compute the same values.
//  - Bit layout: fields packed LSB-first into little-endian 64-bit words (bit_stream.hpp).
//  - No allocation per message in steady state: encode_into writes into a caller's
//    Encoded and reuses its bytes' capacity (resized, never shrunk), and every kind keeps
//    its scratch (bit writers, index buffers) between calls, so re-encoding into the same
//    buffer allocates nothing once the buffers have grown. encode() is the convenient
//    fresh-message form of the same function (identical bytes).
#pragma once

#include <concepts>
#include <cstddef>
#include <cstdint>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <Eigen/Dense>

namespace dlsim::models {

struct Encoded {
  std::vector<std::byte> bytes;
  std::uint64_t bits = 0;      // exact payload size; bytes.size() == ceil(bits / 8)
  std::int64_t dimension = 0;  // coordinates encoded (known to the receiver; not charged)
};

class Compressor {
 public:
  virtual ~Compressor() = default;
  /// Encodes v into `out`, overwriting all of it (bits, dimension, bytes) and reusing the
  /// capacity of out.bytes: the bytes are exactly those of a fresh encode().
  virtual void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) = 0;
  /// The same as encode_into into a fresh message.
  Encoded encode(const Eigen::VectorXd& v, std::mt19937_64& rng) {
    Encoded message;
    encode_into(v, rng, message);
    return message;
  }
  /// Decodes into `out`, resized to the encoded dimension.
  virtual void decode(const Encoded& message, Eigen::VectorXd& out) const = 0;
  /// Payload bits of a message of `dimension` coordinates, for models without math
  /// (`profile`), where nothing is really encoded. Exact for every kind whose size does
  /// not depend on the data; qsgd with Elias coding charges its fixed-code size.
  virtual std::uint64_t bits_for(Eigen::Index dimension) const = 0;
  /// E[decode(encode(v))] = v for every v, up to the binary32 rounding of what is sent
  /// (so `none` is unbiased; fp16's coarser deterministic rounding is not).
  virtual bool unbiased() const = 0;
  /// Sums of decoded messages can be carried in the same format hop by hop (ring
  /// all-reduce re-encodes partial sums): true for elementwise roundings (none, fp16).
  virtual bool all_reducible() const { return false; }
  /// encode(v).bits == bits_for(v.size()) for every v (false for qsgd's Elias coding).
  virtual bool fixed_size() const { return true; }
  /// True when add_decoded() works: the message names few coordinates (top-k), so that
  /// adding them is cheaper than decoding every coordinate and adding the whole vector.
  virtual bool adds_decoded() const { return false; }
  /// target[i] += weight · q[i] for the coordinates the message carries (q = decode of
  /// it; target has its dimension, and may be a segment of a longer vector). For a target
  /// holding no −0.0 this equals
  /// `target += weight * q` bit for bit: the other coordinates would add weight · 0 = +0,
  /// which changes nothing else. Same checks as decode(); std::logic_error unless
  /// adds_decoded().
  virtual void add_decoded(const Encoded& message, double weight,
                           Eigen::Ref<Eigen::VectorXd> target) const {
    (void)message, (void)weight, (void)target;
    throw std::logic_error("this compressor cannot add a message without decoding it");
  }
  /// add_decoded() of the message this instance encoded last (a sender's own copy, e.g.
  /// CHOCO's x̂_i ← x̂_i + q_i), from what it kept while packing it, without reading the
  /// bytes back; the same doubles. Returns false when it kept nothing to add from (no
  /// message yet, or a kind that keeps nothing: then decode the message instead).
  virtual bool add_last_encoded(double weight, Eigen::Ref<Eigen::VectorXd> target) const {
    (void)weight, (void)target;
    return false;
  }
};

// ------------------------------------------------------------------ the concept
template <class T>
concept HasEncode = requires(T& c, const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) {
  c.encode_into(v, rng, out);
  { c.encode(v, rng) } -> std::same_as<Encoded>;
};
template <class T>
concept HasDecode = requires(const T& c, const Encoded& m, Eigen::VectorXd& out) {
  c.decode(m, out);
};
template <class T>
concept HasBitsFor = requires(const T& c, Eigen::Index d) {
  { c.bits_for(d) } -> std::convertible_to<std::uint64_t>;
};
template <class T>
concept HasProperties = requires(const T& c) {
  { c.unbiased() } -> std::convertible_to<bool>;
  { c.all_reducible() } -> std::convertible_to<bool>;
};

/// encode_into(v, rng, out), encode(v, rng) -> Encoded, decode(message, out), bits_for(d),
/// unbiased(), all_reducible().
template <class T>
concept CompressorCodec = HasEncode<T> && HasDecode<T> && HasBitsFor<T> && HasProperties<T>;

/// static_assert(check_compressor<T>()) fails with a message naming what T lacks.
template <class T>
consteval bool check_compressor() {
  static_assert(HasEncode<T>,
                "compressor needs `void encode_into(const VectorXd&, mt19937_64&, Encoded&)` "
                "(and `Encoded encode(const VectorXd&, mt19937_64&)`, inherited from Compressor)");
  static_assert(HasDecode<T>, "compressor needs `void decode(const Encoded&, VectorXd&) const`");
  static_assert(HasBitsFor<T>, "compressor needs `std::uint64_t bits_for(Index) const`");
  static_assert(HasProperties<T>,
                "compressor needs `bool unbiased() const` and `bool all_reducible() const`");
  return CompressorCodec<T>;
}

/// Throws std::invalid_argument unless message.bytes.size() == ceil(bits / 8).
void check_message_size(const Encoded& message, const char* kind);

/// `none`: every coordinate as an IEEE-754 binary32 (32·d bits). decode returns the
/// float-rounded values.
class Fp32Compressor final : public Compressor {
 public:
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return 32 * std::uint64_t(dimension);
  }
  bool unbiased() const override { return true; }  // up to binary32 rounding
  bool all_reducible() const override { return true; }
};
static_assert(check_compressor<Fp32Compressor>());

}  // namespace dlsim::models
