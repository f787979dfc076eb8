// Software prefetch of memory a later step reads. On x86 the instruction is inline asm,
// which the compiler keeps: g++ 12 -O2 compiled a loop of __builtin_prefetch over a data
// row's cache lines (inlined from a FeatureMatrix method) to nothing.
#pragma once

#include <cstddef>

namespace dlsim::models {

/// Asks for the 64-byte line holding `p` in every cache level.
inline void prefetch_line(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

/// Every 64-byte line of [p, p + bytes).
inline void prefetch_bytes(const void* p, std::size_t bytes) {
  const auto* first = static_cast<const char*>(p);
  for (std::size_t at = 0; at < bytes; at += 64) prefetch_line(first + at);
  if (bytes > 0) prefetch_line(first + bytes - 1);  // the last line when p is not aligned
}

}  // namespace dlsim::models
