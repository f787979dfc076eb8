// Two encoded vectors travelling as one message (compressed push-sum sends a numerator
// and a weight difference together). The network is charged the parts' payload bits,
// first.bits + second.bits; where the first part ends is framing, the message header's
// business (network.header), so the in-memory prefix that records it is not charged.
//
// Buffers are recycled (sim/network/payload_pool.hpp) from one pool per thread: a pool
// is only ever touched by its own thread, and a buffer is reused only once every
// holder, on whatever thread, has let it go, so sharing a thread's pool among the
// workers that run on it is safe; the bytes written never depend on which buffer.
#pragma once

#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <utility>

#include "sim/network/message.hpp"
#include "sim/network/payload_pool.hpp"

namespace dlsim::sim {

namespace payload_pair_detail {
struct Frame {
  std::uint64_t first_bits, second_bits;
  std::int64_t first_dimension, second_dimension;
  std::uint64_t first_bytes;
};

/// This thread's pool of joined and split payloads.
inline PayloadPool& payload_pair_pool() {
  thread_local PayloadPool pool;
  return pool;
}
}  // namespace payload_pair_detail

inline Payload join_payloads(const models::Encoded& first, const models::Encoded& second) {
  using payload_pair_detail::Frame;
  auto joined = payload_pair_detail::payload_pair_pool().acquire();
  joined->bits = first.bits + second.bits;
  joined->dimension = first.dimension;
  const Frame frame{first.bits, second.bits, first.dimension, second.dimension, first.bytes.size()};
  joined->bytes.resize(sizeof(Frame) + first.bytes.size() + second.bytes.size());
  std::memcpy(joined->bytes.data(), &frame, sizeof(Frame));
  std::copy(first.bytes.begin(), first.bytes.end(), joined->bytes.begin() + sizeof(Frame));
  std::copy(second.bytes.begin(), second.bytes.end(),
            joined->bytes.begin() + std::ptrdiff_t(sizeof(Frame) + first.bytes.size()));
  return joined;
}

inline std::pair<Payload, Payload> split_payload(const models::Encoded& joined) {
  using payload_pair_detail::Frame;
  if (joined.bytes.size() < sizeof(Frame)) throw std::logic_error("split_payload: no frame");
  Frame frame{};
  std::memcpy(&frame, joined.bytes.data(), sizeof(Frame));
  auto first = payload_pair_detail::payload_pair_pool().acquire();
  auto second = payload_pair_detail::payload_pair_pool().acquire();
  first->bits = frame.first_bits;
  first->dimension = frame.first_dimension;
  second->bits = frame.second_bits;
  second->dimension = frame.second_dimension;
  const auto begin = joined.bytes.begin() + std::ptrdiff_t(sizeof(Frame));
  const auto middle = begin + std::ptrdiff_t(frame.first_bytes);
  first->bytes.assign(begin, middle);
  second->bytes.assign(middle, joined.bytes.end());
  return {std::move(first), std::move(second)};
}

}  // namespace dlsim::sim
