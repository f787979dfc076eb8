// A node's incoming messages: those that arrived and were not received yet, and the
// receives that wait for one. Receives match on (source, tag); kAnySource matches
// every source. Matching is in arrival order, so results are deterministic.
//
// No allocation per message in steady state: arrived messages sit in a vector used as a
// queue (taken ones at the front are skipped by an offset and the storage is rewound
// when it empties, so its capacity is reused); waiters in a vector. Both keep their
// capacity; taking from the middle shifts the later entries (queues are short).
#pragma once

#include <coroutine>
#include <cstddef>
#include <utility>
#include <vector>

#include "sim/network/message.hpp"

namespace dlsim::sim {

inline constexpr NodeId kAnySource = -1;

class Mailbox {
 public:
  /// Takes the oldest matching arrived message, if any.
  bool try_take(NodeId src, std::uint64_t tag, Message& out) {
    for (std::size_t i = head_; i < arrived_.size(); ++i) {
      if (matches(arrived_[i], src, tag)) {
        out = std::move(arrived_[i]);
        remove_arrived(i);
        return true;
      }
    }
    return false;
  }

  /// Messages that arrived and were not taken yet.
  std::size_t arrived() const { return arrived_.size() - head_; }

  /// Registers a receive that waits; `out` receives the message.
  void wait(NodeId src, std::uint64_t tag, std::coroutine_handle<> h, Message* out) {
    if (waiters_.capacity() == 0) waiters_.reserve(kFirstCapacity);
    waiters_.push_back(Waiter{src, tag, h, out});
  }

  /// Withdraws the waiting receive of coroutine `h` (a receive that gave up, e.g. on a
  /// failed peer: sim/runtime/node_failures.hpp); returns whether there was one.
  bool cancel(std::coroutine_handle<> h) {
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (it->handle == h) {
        waiters_.erase(it);
        return true;
      }
    }
    return false;
  }

  /// Hands an arriving message to the first matching waiter and returns its handle to
  /// resume, or keeps the message and returns a null handle.
  std::coroutine_handle<> deliver(Message&& m) {
    for (auto it = waiters_.begin(); it != waiters_.end(); ++it) {
      if (matches(m, it->src, it->tag)) {
        *it->out = std::move(m);
        auto h = it->handle;
        waiters_.erase(it);
        return h;
      }
    }
    if (head_ > 0 && arrived_.size() == arrived_.capacity()) {  // reuse the taken front
      arrived_.erase(arrived_.begin(), arrived_.begin() + std::ptrdiff_t(head_));
      head_ = 0;
    }
    if (arrived_.capacity() == 0) arrived_.reserve(kFirstCapacity);
    arrived_.push_back(std::move(m));
    return {};
  }

 private:
  // Room for a ring's two neighbours at the first use: one allocation instead of two.
  static constexpr std::size_t kFirstCapacity = 2;
  struct Waiter {
    NodeId src;
    std::uint64_t tag;
    std::coroutine_handle<> handle;
    Message* out;
  };
  static bool matches(const Message& m, NodeId src, std::uint64_t tag) {
    return (src == kAnySource || m.src == src) && m.tag == tag;
  }
  // Removes the (moved-from) entry i >= head_, keeping the arrival order of the others.
  void remove_arrived(std::size_t i) {
    if (i == head_) {
      ++head_;  // moved from: it holds no payload reference any more
    } else {
      for (std::size_t k = i; k + 1 < arrived_.size(); ++k)
        arrived_[k] = std::move(arrived_[k + 1]);
      arrived_.pop_back();
    }
    if (head_ == arrived_.size()) {  // empty: rewind (clear keeps the capacity)
      arrived_.clear();
      head_ = 0;
    }
  }

  std::vector<Message> arrived_;  // entries [head_, size) are waiting
  std::size_t head_ = 0;
  std::vector<Waiter> waiters_;
};

}  // namespace dlsim::sim
