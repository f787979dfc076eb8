// A FIFO queue on a power-of-two ring buffer: push_back, front and pop_front in O(1), and
// no allocation once it has grown to the longest queue seen (std::deque allocates and
// frees blocks as its contents move along).
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace dlsim::sim {

template <class T>
class RingQueue {
 public:
  bool empty() const { return count_ == 0; }
  std::size_t size() const { return count_; }
  const T& front() const { return slots_[head_]; }
  void push_back(T value) {
    if (count_ == slots_.size()) grow();
    slots_[(head_ + count_) & (slots_.size() - 1)] = std::move(value);
    ++count_;
  }
  void pop_front() {
    slots_[head_] = T{};
    head_ = (head_ + 1) & (slots_.size() - 1);
    --count_;
  }

 private:
  void grow() {
    std::vector<T> bigger(slots_.empty() ? 8 : 2 * slots_.size());
    for (std::size_t i = 0; i < count_; ++i)
      bigger[i] = std::move(slots_[(head_ + i) & (slots_.size() - 1)]);
    slots_ = std::move(bigger);
    head_ = 0;
  }
  std::vector<T> slots_;  // size: 0 or a power of two
  std::size_t head_ = 0;
  std::size_t count_ = 0;
};

}  // namespace dlsim::sim
