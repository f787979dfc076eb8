// Decorators over any compressor C:
//  - ErrorFeedback (Seide et al., Interspeech 2014; Karimireddy et al., EF-SGD, ICML
//    2019): e ← e + v; q = C(e) (the decoded message, what the receiver gets);
//    e ← e − q; send C's message. Hence e' = e + v − C(e + v) exactly (in doubles).
//    The residual e is per instance: one instance per message stream.
//  - PerTensor: a message whose length equals the sum of the model's tensor sizes is
//    cut into those slices (layers), each encoded by its own instance of C with the same
//    rng in slice order; the bit streams are concatenated: bits = Σ slice bits. When C's
//    size depends on the data (qsgd with Elias coding) each slice is preceded by the
//    Elias-omega code of its bit count + 1. Messages of any other length use one
//    further instance of C on the whole message.
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "models/compress/bit_stream.hpp"
#include "models/compress/compressor.hpp"

namespace dlsim::models {

class ErrorFeedback final : public Compressor {
 public:
  explicit ErrorFeedback(std::unique_ptr<Compressor> inner) : inner_(std::move(inner)) {}
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override {
    inner_->decode(message, out);
  }
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return inner_->bits_for(dimension);
  }
  bool unbiased() const override { return false; }
  bool fixed_size() const override { return inner_->fixed_size(); }

  /// The residual e after the last encode (empty before the first).
  const Eigen::VectorXd& residual() const { return residual_; }

 private:
  std::unique_ptr<Compressor> inner_;
  Eigen::VectorXd residual_, sent_;
};
static_assert(check_compressor<ErrorFeedback>());

class PerTensor final : public Compressor {
 public:
  using Factory = std::function<std::unique_ptr<Compressor>()>;
  PerTensor(const Factory& make_inner, std::vector<Eigen::Index> tensor_sizes);

  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) override;
  void decode(const Encoded& message, Eigen::VectorXd& out) const override;
  std::uint64_t bits_for(Eigen::Index dimension) const override;
  bool unbiased() const override { return whole_->unbiased(); }
  bool all_reducible() const override { return whole_->all_reducible(); }
  bool fixed_size() const override { return whole_->fixed_size(); }
  /// The slices' kind adds its messages in place (top-k): each slice's part is added to
  /// its segment of the target, as decode() would write it.
  bool adds_decoded() const override { return whole_->adds_decoded(); }
  void add_decoded(const Encoded& message, double weight,
                   Eigen::Ref<Eigen::VectorXd> target) const override;
  bool add_last_encoded(double weight, Eigen::Ref<Eigen::VectorXd> target) const override;

 private:
  bool split(Eigen::Index dimension) const { return dimension == total_; }
  // Checks a split message and calls slice(t, first coordinate, part) for each slice's
  // part, in order (decode() and add_decoded()).
  template <class Slice>
  void for_each_slice(const Encoded& message, Slice&& slice) const;
  // How the last message was encoded (add_last_encoded()).
  enum class Last { none, whole, split };

  std::vector<Eigen::Index> sizes_;
  Eigen::Index total_ = 0;
  std::vector<std::unique_ptr<Compressor>> slices_;
  std::unique_ptr<Compressor> whole_;
  std::vector<Eigen::VectorXd> slice_values_;  // reused buffers, one per tensor
  Encoded slice_message_;
  BitWriter writer_;
  Last last_ = Last::none;
};
static_assert(check_compressor<PerTensor>());

}  // namespace dlsim::models
