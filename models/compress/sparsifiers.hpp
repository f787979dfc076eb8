// Sparsifiers: a few coordinates are sent, each as a binary32 value (docs/algorithms.md §1).
//  - top-k (Aji & Heafield, EMNLP 2017; Stich et al., NeurIPS 2018): the k largest
//    |v_i|; ties broken by the lower index (a strict total order, so the selection is
//    unique). Found by selection (a radix histogram of the magnitudes' bit patterns and
//    std::nth_element within one bin), never a full sort. Wire: the k indices in
//    ascending order, ⌈log2 d⌉ bits each, then their k values: k(32 + ⌈log2 d⌉) bits.
//  - random-k (Stich et al., NeurIPS 2018; Wangni et al., NeurIPS 2018): k coordinates
//    chosen uniformly without replacement from a 64-bit seed drawn from the encode rng;
//    the seed is sent instead of the indices (random_bits.hpp says how both sides expand
//    it). Wire: seed, then the values in ascending index order: 64 + 32k bits.
//    `unbiased` scales the values by d/k (E[out] = v up to float rounding).
// k comes from `ratio` ρ (the fraction dropped): k = max(1, round(d(1 − ρ))), or is given.
#pragma once

#include <cstdint>
#include <vector>

#include "models/compress/bit_stream.hpp"
#include "models/compress/compressor.hpp"
#include "models/compress/registry.hpp"
#include "models/cpu/instruction_set.hpp"

namespace dlsim::models {

struct SparsityOptions {
  double ratio = 0.99;  // fraction of coordinates dropped, in [0, 1); used when k == 0
  std::int64_t k = 0;   // coordinates kept (≥ 1), or 0: from ratio
};

/// k for a message of d coordinates (0 for d = 0). Throws std::invalid_argument when a
/// given k exceeds d.
std::int64_t kept_coordinates(const SparsityOptions& options, std::int64_t d);

class TopKCompressor final : public Compressor {
 public:
  explicit TopKCompressor(SparsityOptions options) : options_(options) {}
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override;
  bool unbiased() const override { return false; }
  bool adds_decoded() const override { return true; }
  void add_decoded(const Encoded& message, double weight,
                   Eigen::Ref<Eigen::VectorXd> target) const override;
  bool add_last_encoded(double weight, Eigen::Ref<Eigen::VectorXd> target) const override;

 private:
  // Throws std::invalid_argument unless the message has the size its dimension implies.
  void check(const Encoded& message) const;
  // Calls kept(i, q_i) for every coordinate a checked message carries, in its order
  // (std::invalid_argument for an index out of range).
  template <class Kept>
  void for_each_kept(const Encoded& message, Kept&& kept) const;

  SparsityOptions options_;
  std::vector<std::uint64_t> keys_;  // reused buffers
  std::vector<std::uint32_t> histogram_;
  // The last message encoded, as packed (add_last_encoded()): its dimension (−1 before the
  // first), its kept indices (the first kept_values_.size() entries of keys_, which hold
  // them until the next message) and their fp32 bit patterns.
  Eigen::Index last_dimension_ = -1;
  std::vector<std::uint32_t> kept_values_;
  BitWriter writer_;
};
static_assert(check_compressor<TopKCompressor>());

/// The magnitude key of x: its bit pattern without the sign. For non-NaN doubles,
/// key order is |x| order.
std::uint64_t magnitude_key(double x);

/// The k-th largest magnitude key t of v (1 ≤ k ≤ d), by selection (top_k_select.cpp),
/// and how many keys are strictly larger than t.
struct KthKey {
  std::uint64_t key = 0;
  std::int64_t greater = 0;
  std::int64_t equal = 0;  // how many keys equal `key`, when known (d <= 65,536), else 0
};
/// `scratch` and `histogram` are reused between calls. When d <= 65,536 the histogram is
/// left all zero (the small path clears only the bins it used, at the end, and relies on
/// finding them zero when the size is its own); else it is refilled.
KthKey kth_largest_key(const Eigen::VectorXd& v, std::int64_t k,
                       std::vector<std::uint64_t>& scratch, std::vector<std::uint32_t>& histogram);

/// kth_largest_key's path for d <= 65,536, with the vector steps of instruction set `set`
/// (one the processor has: models/cpu/instruction_set.hpp): for tests.
namespace top_k_detail {
KthKey kth_largest_key_small(const double* x, Eigen::Index d, std::int64_t k,
                             std::vector<std::uint64_t>& scratch,
                             std::vector<std::uint32_t>& histogram, InstructionSet set);
/// The positions i with |x_i| >= t or x_i NaN, ascending, into `at` (room for d + 8);
/// returns their count. SSE2 four at a time, AVX2 four, or AVX-512 eight (`set`).
std::size_t indices_at_least(const double* x, Eigen::Index d, double t, std::uint64_t* at,
                             InstructionSet set);
}  // namespace top_k_detail

class RandomKCompressor final : public Compressor {
 public:
  RandomKCompressor(SparsityOptions options, bool scale_unbiased)
      : options_(options), unbiased_(scale_unbiased) {}
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override;
  bool unbiased() const override { return unbiased_; }

 private:
  SparsityOptions options_;
  bool unbiased_;
  std::vector<std::int64_t> indices_;  // reused buffers
  std::vector<std::uint64_t> chosen_;
  BitWriter writer_;
};
static_assert(check_compressor<RandomKCompressor>());

/// The k indices of [0, d) that random-k chooses for `seed`, ascending.
std::vector<std::int64_t> random_k_indices(std::uint64_t seed, std::int64_t d, std::int64_t k);
/// The same into `indices`, with `bitmap` as scratch (both keep their memory).
void random_k_indices(std::uint64_t seed, std::int64_t d, std::int64_t k,
                      std::vector<std::int64_t>& indices, std::vector<std::uint64_t>& bitmap);

/// The keys `ratio` and `k` of top-k and random-k (give exactly one).
std::vector<spec::Key> sparsity_keys();
/// Reads ratio xor k. Throws CompressorConfigError.
SparsityOptions read_sparsity(const nlohmann::json& object);

/// The typed options of top-k and random-k (sparsifier_options.cpp).
class SparsifierOptions final : public CompressorOptions {
 public:
  enum class Kind { top_k, random_k };
  SparsifierOptions(Kind kind, SparsityOptions sparsity, bool scale_unbiased)
      : kind(kind), sparsity(sparsity), scale_unbiased(scale_unbiased) {}
  std::unique_ptr<Compressor> build() const override;
  /// k ≤ d, and k only without per-tensor slices.
  void check_dimensions(const std::vector<Eigen::Index>& tensor_sizes,
                        bool per_tensor) const override;
  /// top-k keeps a 64-bit key per coordinate (kth_largest_key's scratch, then the kept
  /// indices), and its last message's kept fp32 values, 4 bytes each (add_last_encoded()).
  double scratch_vectors(std::int64_t message_size) const override {
    if (kind != Kind::top_k) return 0;
    if (message_size == 0) return 1;
    return 1 + double(kept_coordinates(sparsity, message_size)) / (2 * double(message_size));
  }

  Kind kind;
  SparsityOptions sparsity;
  bool scale_unbiased = false;  // random-k
};

}  // namespace dlsim::models
