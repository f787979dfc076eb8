// random-k: Floyd's sampling of k distinct indices from a sent 64-bit seed; values in
// ascending index order, optionally scaled by d/k.
#include <algorithm>
#include <bit>
#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"
#include "models/compress/random_bits.hpp"
#include "models/compress/sparsifiers.hpp"

namespace dlsim::models {

std::vector<std::int64_t> random_k_indices(std::uint64_t seed, std::int64_t d, std::int64_t k) {
  std::vector<std::int64_t> indices;
  std::vector<std::uint64_t> bitmap;
  random_k_indices(seed, d, k, indices, bitmap);
  return indices;
}

void random_k_indices(std::uint64_t seed, std::int64_t d, std::int64_t k,
                      std::vector<std::int64_t>& indices,
                      std::vector<std::uint64_t>& chosen_bitmap) {
  rng::SplitMix64 gen(seed);
  chosen_bitmap.assign(std::size_t((d + 63) / 64), 0);
  auto chosen = [&](std::int64_t i) {
    return (chosen_bitmap[std::size_t(i / 64)] >> (i % 64)) & 1;
  };
  auto choose = [&](std::int64_t i) {
    chosen_bitmap[std::size_t(i / 64)] |= std::uint64_t(1) << (i % 64);
  };
  indices.clear();
  indices.reserve(std::size_t(k));
  for (std::int64_t j = d - k; j < d;
       ++j) {  // Floyd: after step j, a uniform (j−d+k+1)-subset of [0, j]
    const auto t = std::int64_t(gen.below(std::uint64_t(j) + 1));
    const std::int64_t pick = chosen(t) ? j : t;
    choose(pick);
    indices.push_back(pick);
  }
  if (k * 16 < d) {
    std::sort(indices.begin(), indices.end());
  } else {
    indices.clear();
    for (std::size_t w = 0; w < chosen_bitmap.size(); ++w)
      for (std::uint64_t bits = chosen_bitmap[w]; bits != 0; bits &= bits - 1)
        indices.push_back(std::int64_t(64 * w) + std::countr_zero(bits));
  }
}

std::uint64_t RandomKCompressor::bits_for(Eigen::Index dimension) const {
  if (dimension == 0) return 0;
  return 64 + 32 * std::uint64_t(kept_coordinates(options_, dimension));
}

void RandomKCompressor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng,
                                    Encoded& message) {
  const Eigen::Index d = v.size();
  message.dimension = d;
  message.bits = 0;
  message.bytes.clear();
  if (d == 0) return;
  const std::int64_t k = kept_coordinates(options_, d);
  const std::uint64_t seed = rng();
  const double scale = unbiased_ ? double(d) / double(k) : 1.0;
  BitWriter& out = writer_;
  out.reset(bits_for(d));
  out.put(seed, 64);
  random_k_indices(seed, d, k, indices_, chosen_);
  for (const std::int64_t i : indices_)
    out.put(std::bit_cast<std::uint32_t>(float(v(i) * scale)), 32);
  message.bits = out.bits();
  out.finish_into(message.bytes);
}

void RandomKCompressor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  check_message_size(message, "random-k");
  const Eigen::Index d = message.dimension;
  if (message.bits != bits_for(d))
    throw std::invalid_argument("random-k decode: " + std::to_string(message.bits) + " bits for " +
                                std::to_string(d) + " coordinates");
  out.setZero(d);
  if (d == 0) return;
  BitReader in(message.bytes, message.bits);
  const std::uint64_t seed = in.get(64);
  // scratch: decode is const and may run on any thread
  thread_local std::vector<std::int64_t> indices;
  thread_local std::vector<std::uint64_t> bitmap;
  random_k_indices(seed, d, kept_coordinates(options_, d), indices, bitmap);
  for (const std::int64_t i : indices)
    out(i) = double(std::bit_cast<float>(std::uint32_t(in.get(32))));
}

namespace random_k_compressor {

std::vector<spec::Key> keys() {
  return sparsity_keys() +
         std::vector<spec::Key>{spec::defaulted("unbiased", spec::boolean(), false,
                                                "Scale the values by d/k (unbiased).")};
}

const CompressorRegistration registered{{
    .name = "random-k",
    .doc = "k uniformly random coordinates; a 64-bit seed is sent instead of the indices: "
           "32k + 64 bits.",
    .bits = "32k + 64",
    .keys = keys(),
    .read =
        [](const nlohmann::json& j) {
          const SparsityOptions sparsity = read_sparsity(j);
          return std::make_shared<SparsifierOptions>(SparsifierOptions::Kind::random_k, sparsity,
                                                     read_key(j, keys(), "unbiased").get<bool>());
        },
    .example = {{"k", 1}},
}};

}  // namespace random_k_compressor

}  // namespace dlsim::models
