// Error feedback and per-tensor application (wrappers.hpp).
#include "models/compress/wrappers.hpp"

#include <stdexcept>
#include <string>

#include "models/compress/bit_stream.hpp"

namespace dlsim::models {

namespace {

/// Appends the first message.bits bits of message to out.
void append_bits(BitWriter& out, const Encoded& message) {
  BitReader in(message.bytes, message.bits);
  while (in.remaining() >= 56) out.put(in.get(56), 56);
  const int rest = int(in.remaining());
  out.put(in.get(rest), rest);
}

/// The next `bits` bits of in as a message of `dimension` coordinates.
Encoded take_bits(BitReader& in, std::uint64_t bits, Eigen::Index dimension) {
  if (bits > in.remaining())
    throw std::invalid_argument("per-tensor decode: message shorter than its slices");
  BitWriter out(bits);
  std::uint64_t left = bits;
  for (; left >= 56; left -= 56) out.put(in.get(56), 56);
  out.put(in.get(int(left)), int(left));
  Encoded part;
  part.bits = out.bits();
  part.bytes = out.finish();
  part.dimension = dimension;
  return part;
}

}  // namespace

Encoded ErrorFeedback::encode(const Eigen::VectorXd& v, std::mt19937_64& rng) {
  if (residual_.size() == 0) residual_.setZero(v.size());
  if (residual_.size() != v.size())
    throw std::logic_error("error feedback: message length changed from " +
                           std::to_string(residual_.size()) + " to " + std::to_string(v.size()) +
                           " (one instance per stream)");
  residual_ += v;
  Encoded message = inner_->encode(residual_, rng);
  inner_->decode(message, sent_);
  residual_ -= sent_;
  return message;
}

PerTensor::PerTensor(const Factory& make_inner, std::vector<Eigen::Index> tensor_sizes)
    : sizes_(std::move(tensor_sizes)), whole_(make_inner()) {
  for (const Eigen::Index size : sizes_) {
    if (size < 0) throw std::invalid_argument("per-tensor: negative tensor size");
    total_ += size;
    slices_.push_back(make_inner());
  }
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

Encoded PerTensor::encode(const Eigen::VectorXd& v, std::mt19937_64& rng) {
  if (!split(v.size())) return whole_->encode(v, rng);
  BitWriter out(bits_for(v.size()));
  Eigen::Index begin = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    slice_ = v.segment(begin, sizes_[t]);
    const Encoded part = slices_[t]->encode(slice_, rng);
    if (!fixed_size()) out.put_elias_omega(part.bits + 1);
    append_bits(out, part);
    begin += sizes_[t];
  }
  Encoded message;
  message.dimension = v.size();
  message.bits = out.bits();
  message.bytes = out.finish();
  return message;
}

void PerTensor::decode(const Encoded& message, Eigen::VectorXd& out) const {
  if (!split(message.dimension)) return whole_->decode(message, out);
  check_message_size(message, "per-tensor");
  out.resize(message.dimension);
  BitReader in(message.bytes, message.bits);
  Eigen::VectorXd part_out;
  Eigen::Index begin = 0;
  for (std::size_t t = 0; t < sizes_.size(); ++t) {
    const std::uint64_t bits =
        fixed_size() ? slices_[t]->bits_for(sizes_[t]) : in.get_elias_omega() - 1;
    slices_[t]->decode(take_bits(in, bits, sizes_[t]), part_out);
    out.segment(begin, sizes_[t]) = part_out;
    begin += sizes_[t];
  }
  if (in.remaining() != 0) throw std::invalid_argument("per-tensor decode: trailing bits");
}

}  // namespace dlsim::models
