// Error feedback and per-tensor application (wrappers.hpp).
#include "models/compress/wrappers.hpp"

#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"

namespace dlsim::models {

namespace {

/// The next `bits` bits of in as a message of `dimension` coordinates, into `part` (which
/// keeps its memory). Checked here first, so a short message names the per-tensor format.
void take_bits(BitReader& in, std::uint64_t bits, Eigen::Index dimension, Encoded& part) {
  if (bits > in.remaining())
    throw std::invalid_argument("per-tensor decode: message shorter than its slices");
  in.get_bytes(bits, part.bytes);
  part.bits = bits;
  part.dimension = dimension;
}

}  // namespace

void ErrorFeedback::encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& out) {
  if (residual_.size() == 0) residual_.setZero(v.size());
  if (residual_.size() != v.size())
    throw std::logic_error("error feedback: message length changed from " +
                           std::to_string(residual_.size()) + " to " + std::to_string(v.size()) +
                           " (one instance per stream)");
  residual_ += v;
  inner_->encode_into(residual_, rng, out);
  inner_->decode(out, sent_);
  residual_ -= sent_;
}

PerTensor::PerTensor(const Factory& make_inner, std::vector<Eigen::Index> tensor_sizes)
    : sizes_(std::move(tensor_sizes)), whole_(make_inner()) {
  for (const Eigen::Index size : sizes_) {
    if (size < 0) throw std::invalid_argument("per-tensor: negative tensor size");
    total_ += size;
    slices_.push_back(make_inner());
  }
  slice_values_.resize(sizes_.size());
}

std::uint64_t PerTensor::bits_for(Eigen::Index dimension) const {
  if (!split(dimension)) return whole_->bits_for(dimension);
  std::uint64_t bits = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    const std::uint64_t part = slices_[t]->bits_for(sizes_[t]);
    bits += part + (fixed_size() ? 0 : std::uint64_t(elias_omega_bits(part + 1)));
  }
  return bits;
}

void PerTensor::encode_into(const Eigen::VectorXd& v, std::mt19937_64& rng, Encoded& message) {
  last_ = Last::none;  // until this message is whole
  if (!split(v.size())) {
    whole_->encode_into(v, rng, message);
    last_ = Last::whole;
    return;
  }
  BitWriter& out = writer_;
  out.reset(bits_for(v.size()));
  Eigen::Index begin = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    slice_values_[t] = v.segment(begin, sizes_[t]);  // same size every time: no allocation
    slices_[t]->encode_into(slice_values_[t], rng, slice_message_);
    if (!fixed_size()) out.put_elias_omega(slice_message_.bits + 1);
    out.put_bytes(slice_message_.bytes.data(), slice_message_.bits);
    begin += sizes_[t];
  }
  message.dimension = v.size();
  message.bits = out.bits();
  out.finish_into(message.bytes);
  last_ = Last::split;
}

template <class Slice>
void PerTensor::for_each_slice(const Encoded& message, Slice&& slice) const {
  check_message_size(message, "per-tensor");
  BitReader in(message.bytes, message.bits);
  // Scratch: decoding is const and may run on any thread.
  thread_local Encoded part;
  Eigen::Index begin = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    const std::uint64_t bits =
        fixed_size() ? slices_[t]->bits_for(sizes_[t]) : in.get_elias_omega() - 1;
    take_bits(in, bits, sizes_[t], part);
    slice(t, begin, part);
    begin += sizes_[t];
  }
  if (in.remaining() != 0) throw std::invalid_argument("per-tensor decode: trailing bits");
}

void PerTensor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  if (!split(message.dimension)) return whole_->decode(message, out);
  out.resize(message.dimension);
  // One decoded buffer per slice, so that their sizes never change (a resized Eigen
  // vector reallocates).
  thread_local std::vector<Eigen::VectorXd> part_out;
  if (part_out.size() < sizes_.size()) part_out.resize(sizes_.size());
  for_each_slice(message, [&](std::size_t t, Eigen::Index begin, const Encoded& part) {
    slices_[t]->decode(part, part_out[t]);
    out.segment(begin, sizes_[t]) = part_out[t];
  });
}

void PerTensor::add_decoded(const Encoded& message, double weight,
                            Eigen::Ref<Eigen::VectorXd> target) const {
  if (!split(message.dimension)) return whole_->add_decoded(message, weight, target);
  if (target.size() != message.dimension)
    throw std::invalid_argument(
        "per-tensor decode: a message of " + std::to_string(message.dimension) +
        " coordinates added to a vector of " + std::to_string(target.size()));
  for_each_slice(message, [&](std::size_t t, Eigen::Index begin, const Encoded& part) {
    slices_[t]->add_decoded(part, weight, target.segment(begin, sizes_[t]));
  });
}

bool PerTensor::add_last_encoded(double weight, Eigen::Ref<Eigen::VectorXd> target) const {
  if (last_ == Last::none) return false;
  if (last_ == Last::whole) return whole_->add_last_encoded(weight, target);
  if (target.size() != total_)
    throw std::invalid_argument("per-tensor: the last message, of " + std::to_string(total_) +
                                " coordinates, added to a vector of " +
                                std::to_string(target.size()));
  // Every slice is of one kind and encoded its part of the last message: the first tells
  // whether the kind keeps what it packed; then every one does.
  Eigen::Index begin = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    if (!slices_[t]->add_last_encoded(weight, target.segment(begin, sizes_[t]))) {
      if (t == 0) return false;
      throw std::logic_error("per-tensor: a slice kept nothing of the last message");
    }
    begin += sizes_[t];
  }
  return true;
}

}  // namespace dlsim::models
