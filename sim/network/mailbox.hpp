// A node's incoming messages: those that arrived and were not received yet, and the
// receives that wait for one. Receives match on (source, tag); kAnySource matches
// every source. Matching is in arrival order, so results are deterministic.
#pragma once

#include <coroutine>
#include <deque>
#include <vector>

#include "sim/network/message.hpp"

namespace dlsim::sim {

inline constexpr NodeId kAnySource = -1;

class Mailbox {
 public:
  /// Takes the oldest matching arrived message, if any.
  bool try_take(NodeId src, std::uint64_t tag, Message& out) {
    for (auto it = arrived_.begin(); it != arrived_.end(); ++it) {
      if (matches(*it, src, tag)) {
        out = std::move(*it);
        arrived_.erase(it);
        return true;
      }
    }
    return false;
  }

  /// Registers a receive that waits; `out` receives the message.
  void wait(NodeId src, std::uint64_t tag, std::coroutine_handle<> h, Message* out) {
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
    arrived_.push_back(std::move(m));
    return {};
  }

 private:
  struct Waiter {
    NodeId src;
    std::uint64_t tag;
    std::coroutine_handle<> handle;
    Message* out;
  };
  static bool matches(const Message& m, NodeId src, std::uint64_t tag) {
    return (src == kAnySource || m.src == src) && m.tag == tag;
  }
  std::deque<Message> arrived_;
  std::vector<Waiter> waiters_;
};

}  // namespace dlsim::sim
