// top-k: the k largest |v_i| (ties: lower index first), as ascending indices and fp32
// values, k(32 + ceil(log2 d)) bits; the selection is in top_k_select.cpp.
#include <bit>
#include <cstring>
#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"
#include "models/compress/sparsifiers.hpp"
#include "models/cpu/instruction_set.hpp"

namespace dlsim::models {

std::uint64_t TopKCompressor::bits_for(Eigen::Index dimension) const {
  const auto k = std::uint64_t(kept_coordinates(options_, dimension));
  return k * (32 + std::uint64_t(ceil_log2(std::uint64_t(dimension))));
}

void TopKCompressor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/,
                                 Encoded& message) {
  const Eigen::Index d = v.size();
  message.dimension = d;
  message.bits = 0;
  message.bytes.clear();
  last_dimension_ = -1;  // until this message is packed
  const std::int64_t k = kept_coordinates(options_, d);
  if (k == 0) return;
  const auto [threshold, greater, equal] = kth_largest_key(v, k, keys_, histogram_);
  const double* x = v.data();
  std::int64_t equal_left = k - greater;  // >= 1: the k-th largest itself

  const int index_bits = ceil_log2(std::uint64_t(d));
  BitWriter& out = writer_;
  out.reset(bits_for(d));
  // The kept indices, without a branch on each (the kept positions look random to the
  // branch predictor): every index is written, and the count moves past the kept ones.
  keys_.resize(std::size_t(d) + 8);  // reused: the kept indices, and room for the writes
  std::uint64_t* kept_at = keys_.data();
  std::size_t kept = 0;
  constexpr std::uint64_t kInfinityKey = 0x7ff0000000000000ULL;  // larger keys are NaNs
  if (equal == equal_left && threshold <= kInfinityKey) {
    // Every key equal to t is kept (the usual case: t is unique): key >= t, i.e.
    // |x_i| >= t as doubles, NaNs included as their keys are.
    kept = top_k_detail::indices_at_least(x, d, std::bit_cast<double>(threshold), kept_at,
                                          best_instruction_set());
  } else {
    for (Eigen::Index i = 0; i < d; ++i) {
      const std::uint64_t key = magnitude_key(x[i]);
      const bool tie = key == threshold;
      kept_at[kept] = std::uint64_t(i);
      kept += std::size_t((key > threshold) | (tie & (equal_left > 0)));
      equal_left -= std::int64_t(tie);
    }
  }
  kept_values_.resize(kept);
  for (std::size_t j = 0; j < kept; ++j)
    kept_values_[j] = std::bit_cast<std::uint32_t>(float(x[kept_at[j]]));
  out.put_fields(kept_at, kept, index_bits);
  out.put_fields(kept_values_.data(), kept, 32);
  message.bits = out.bits();
  out.finish_into(message.bytes);
  last_dimension_ = d;
}

void TopKCompressor::check(const Encoded& message) const {
  check_message_size(message, "top-k");
  if (message.bits != bits_for(message.dimension))
    throw std::invalid_argument("top-k decode: " + std::to_string(message.bits) + " bits for " +
                                std::to_string(message.dimension) + " coordinates");
}

template <class Kept>
void TopKCompressor::for_each_kept(const Encoded& message, Kept&& kept) const {
  const Eigen::Index d = message.dimension;
  const std::int64_t k = kept_coordinates(options_, d);
  const int index_bits = ceil_log2(std::uint64_t(d));
  // The k indices, then the k values after them. The size is checked, so every field lies
  // in the message: while the value's 8-byte word fits (the index's lies before it), both
  // are read from one load each at positions computed from j, without checks (plain
  // locals, so that nothing is kept in memory across the caller's stores); the last few
  // through BitReader::get().
  const std::byte* bytes = message.bytes.data();
  const std::uint64_t size = message.bytes.size();
  const std::uint64_t index_mask = (std::uint64_t(1) << (index_bits & 63)) - 1;
  const std::uint64_t values_at = std::uint64_t(k) * std::uint64_t(index_bits);
  const auto word_at = [&](std::uint64_t bit) {
    std::uint64_t word;
    std::memcpy(&word, bytes + bit / 8, 8);
    return word >> (bit % 8);
  };
  std::int64_t j = 0;
  if (index_bits <= 56) {
    std::uint64_t index_bit = 0, value_bit = values_at;
    for (; j < k && value_bit / 8 + 8 <= size;
         ++j, index_bit += std::uint64_t(index_bits), value_bit += 32) {
      const std::uint64_t i = word_at(index_bit) & index_mask;
      const auto q = std::bit_cast<float>(std::uint32_t(word_at(value_bit)));
      if (i >= std::uint64_t(d)) throw std::invalid_argument("top-k decode: index out of range");
      kept(Eigen::Index(i), double(q));
    }
  }
  BitReader indices(message.bytes, message.bits);
  BitReader values(message.bytes, message.bits);
  indices.skip(std::uint64_t(j) * std::uint64_t(index_bits));
  values.skip(values_at + std::uint64_t(j) * 32);
  for (; j < k; ++j) {
    const std::uint64_t i = indices.get(index_bits);
    if (i >= std::uint64_t(d)) throw std::invalid_argument("top-k decode: index out of range");
    kept(Eigen::Index(i), double(std::bit_cast<float>(std::uint32_t(values.get(32)))));
  }
}

void TopKCompressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check(message);
  out.setZero(message.dimension);
  double* to = out.data();
  for_each_kept(message, [to](Eigen::Index i, double q) { to[i] = q; });
}

void TopKCompressor::add_decoded(const Encoded& message, double weight,
                                 Eigen::Ref<Eigen::VectorXd> target) const {
  check(message);
  if (target.size() != message.dimension)
    throw std::invalid_argument("top-k decode: a message of " + std::to_string(message.dimension) +
                                " coordinates added to a vector of " +
                                std::to_string(target.size()));
  double* to = target.data();
  for_each_kept(message, [to, weight](Eigen::Index i, double q) { to[i] += weight * q; });
}

bool TopKCompressor::add_last_encoded(double weight, Eigen::Ref<Eigen::VectorXd> target) const {
  if (last_dimension_ < 0) return false;
  if (target.size() != last_dimension_)
    throw std::invalid_argument("top-k: the last message, of " + std::to_string(last_dimension_) +
                                " coordinates, added to a vector of " +
                                std::to_string(target.size()));
  for (std::size_t j = 0; j < kept_values_.size(); ++j)  // as packed: ascending, fp32
    target(Eigen::Index(keys_[j])) += weight * double(std::bit_cast<float>(kept_values_[j]));
  return true;
}

namespace top_k_compressor {

const CompressorRegistration registered{{
    .name = "top-k",
    .doc = "The k largest |v_i| (ties: lower index first), as ascending indices and fp32 "
           "values: k(32 + ceil(log2 d)) bits.",
    .bits = "k(32 + ceil(log2 d))",
    .keys = sparsity_keys(),
    .read =
        [](const nlohmann::json& j) {
          return std::make_shared<SparsifierOptions>(SparsifierOptions::Kind::top_k,
                                                     read_sparsity(j), false);
        },
    .example = {{"k", 1}},
}};

}  // namespace top_k_compressor

}  // namespace dlsim::models
