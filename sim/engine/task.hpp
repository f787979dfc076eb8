// Task<T>: the coroutine type of simulated processes. Lazily started; awaiting a
// task runs it and resumes the awaiter when it finishes (symmetric transfer, so deep
// chains of sub-coroutines do not grow the stack). Exceptions propagate to the
// awaiter. A top-level task is owned by the Engine, which is told when it ends.
//
// Coroutine frames come from a per-thread cache of freed frames by size class (16-byte
// steps, malloc's own granularity, up to 4 KiB; larger frames use the global operator
// new), so a process that calls a sub-coroutine per round or per message (a receive
// loop) allocates nothing in steady state. Freed frames return to the cache of the
// thread that frees them; each thread touches only its own cache; the memory goes back
// to the system at thread exit.
#pragma once

#include <algorithm>
#include <array>
#include <coroutine>
#include <cstddef>
#include <exception>
#include <new>
#include <optional>
#include <utility>

#include "sim/engine/prefetch.hpp"

namespace dlsim::sim {

namespace detail {

// AddressSanitizer must see every frame freed (use-after-free of a frame is a bug it
// should catch), so `make sanitize` builds bypass the cache.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kCacheFrames = false;
#else
inline constexpr bool kCacheFrames = true;
#endif

class FrameCache {
 public:
  // Steps of 16 bytes: a million workers each hold a frame or two at once, and coarser
  // steps cost up to a step per frame (64-byte steps: 56 MB at 10^6 for a 392-byte frame).
  static constexpr std::size_t kStep = 16, kClasses = 256;              // frames up to 4 KiB
  static constexpr std::size_t kMostBytesPrefetched = 16 * kCacheLine;  // of the next frame

  static void* allocate(std::size_t size) {
    const std::size_t c = size_class(size);
    if (kCacheFrames && c < kClasses && !gone_) {
      FreeFrame*& head = instance().free_[c];
      if (FreeFrame* frame = head) {
        head = frame->next;
        // The frame handed out next was usually freed long ago by another process, and is
        // cold: its link would stall that allocation, and its lines the first writes to
        // them. Loading them now overlaps that with this process's work (a write prefetch
        // where the target has one; on the x86-64 baseline an ordinary prefetch).
        if (head) prefetch_lines<true>(head, std::min((c + 1) * kStep, kMostBytesPrefetched));
        return frame;
      }
    }
    return ::operator new(c < kClasses ? (c + 1) * kStep : size);
  }
  static void deallocate(void* p, std::size_t size) noexcept {
    const std::size_t c = size_class(size);
    if (kCacheFrames && c < kClasses && !gone_) {
      FreeFrame*& head = instance().free_[c];
      head = ::new (p) FreeFrame{head};
      return;
    }
    ::operator delete(p);
  }

  FrameCache() = default;
  FrameCache(const FrameCache&) = delete;
  FrameCache& operator=(const FrameCache&) = delete;
  ~FrameCache() {
    gone_ = true;  // frames freed later on this thread go straight to operator delete
    for (FreeFrame* head : free_) {
      while (head) ::operator delete(std::exchange(head, head->next));
    }
  }

 private:
  struct FreeFrame {
    FreeFrame* next;
  };
  static std::size_t size_class(std::size_t size) { return (size + kStep - 1) / kStep - 1; }
  static FrameCache& instance() {
    thread_local FrameCache cache;
    return cache;
  }
  static inline thread_local bool gone_ = false;
  std::array<FreeFrame*, kClasses> free_{};
};

}  // namespace detail

/// Notified when a top-level process finishes (normally or by an exception).
class ProcessObserver {
 public:
  virtual void on_process_done(std::exception_ptr error) = 0;

 protected:
  ~ProcessObserver() = default;
};

template <typename T = void>
class Task;

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;
  std::exception_ptr error;
  ProcessObserver* observer = nullptr;  // set for top-level processes only

  static void* operator new(std::size_t size) { return FrameCache::allocate(size); }
  static void operator delete(void* p, std::size_t size) noexcept {
    FrameCache::deallocate(p, size);
  }

  std::suspend_always initial_suspend() noexcept { return {}; }

  struct FinalAwaiter {
    bool await_ready() noexcept { return false; }
    template <typename P>
    std::coroutine_handle<> await_suspend(std::coroutine_handle<P> h) noexcept {
      PromiseBase& p = h.promise();
      if (p.continuation) return p.continuation;
      if (p.observer) p.observer->on_process_done(p.error);
      return std::noop_coroutine();
    }
    void await_resume() noexcept {}
  };
  FinalAwaiter final_suspend() noexcept { return {}; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
};

template <typename T>
struct Promise : PromiseBase {
  std::optional<T> value;
  Task<T> get_return_object() noexcept;
  template <typename U>
  void return_value(U&& v) {
    value.emplace(std::forward<U>(v));
  }
};

template <>
struct Promise<void> : PromiseBase {
  Task<void> get_return_object() noexcept;
  void return_void() noexcept {}
};

}  // namespace detail

template <typename T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::Promise<T>;
  using Handle = std::coroutine_handle<promise_type>;

  Task() = default;
  explicit Task(Handle h) : handle_(h) {}
  Task(Task&& o) noexcept : handle_(std::exchange(o.handle_, {})) {}
  Task& operator=(Task&& o) noexcept {
    if (this != &o) {
      reset();
      handle_ = std::exchange(o.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool done() const { return !handle_ || handle_.done(); }
  Handle handle() const { return handle_; }

  // Awaiting a task starts it and suspends the awaiter until it returns.
  bool await_ready() const noexcept { return !handle_ || handle_.done(); }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> awaiter) noexcept {
    handle_.promise().continuation = awaiter;
    return handle_;
  }
  T await_resume() {
    auto& p = handle_.promise();
    if (p.error) std::rethrow_exception(p.error);
    if constexpr (!std::is_void_v<T>) return std::move(*p.value);
  }

 private:
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  Handle handle_;
};

namespace detail {
template <typename T>
Task<T> Promise<T>::get_return_object() noexcept {
  return Task<T>(std::coroutine_handle<Promise<T>>::from_promise(*this));
}
inline Task<void> Promise<void>::get_return_object() noexcept {
  return Task<void>(std::coroutine_handle<Promise<void>>::from_promise(*this));
}
}  // namespace detail

}  // namespace dlsim::sim
