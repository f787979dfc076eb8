// The run-time AVX-512 check (avx512.hpp).
#include "models/cpu/avx512.hpp"

namespace dlsim::models {

bool avx512_available() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool available =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
  return available;
#else
  return false;
#endif
}

}  // namespace dlsim::models
