#include "sim/run/interrupt.hpp"

#include <atomic>

namespace dlsim::sim {

namespace {
std::atomic<int> recorded_signal{0};
static_assert(std::atomic<int>::is_always_lock_free,
              "a signal handler may only touch lock-free atomics");
}  // namespace

void request_interrupt(int signal_number) noexcept {
  recorded_signal.store(signal_number, std::memory_order_relaxed);
}

int interrupt_signal() noexcept {
  return recorded_signal.load(std::memory_order_relaxed);
}

const std::atomic<int>& interrupt_request() noexcept {
  return recorded_signal;
}

void clear_interrupt() noexcept {
  recorded_signal.store(0, std::memory_order_relaxed);
}

}  // namespace dlsim::sim
