// Bytes of a data set read into memory (a file's contents, pixel codes): a vector whose
// resize() leaves new bytes unset instead of zeroing them, since readers and decompressors
// write every byte they keep (Fashion-MNIST: 47 MB not zeroed first, README "Case (f)").
// Transparent huge pages (madvise MADV_HUGEPAGE) were tried for these bytes and dropped:
// the kernel's work on them cost 0.2-0.3 s of system time in case (f), ten times the
// user time they saved.
#pragma once

#include <memory>
#include <utility>
#include <vector>

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

  /// Default-initialization: resize() leaves a byte unset.
  template <class U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};

using ByteBuffer = std::vector<unsigned char, DefaultInitAllocator<unsigned char>>;

}  // namespace dlsim::models
