// An allocator whose construct() without arguments default-initializes: a vector's
// resize() then leaves new scalars unset instead of zeroing them, for buffers whose every
// element is written before it is read (a data set's bytes, a bit stream's words).
#pragma once

#include <memory>
#include <utility>

namespace dlsim::models {

template <class T>
class DefaultInitAllocator : public std::allocator<T> {
 public:
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}  // NOLINT: rebinding

  /// Default-initialization: resize() leaves a scalar unset.
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

}  // namespace dlsim::models
