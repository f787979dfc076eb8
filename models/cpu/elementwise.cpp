// The elementwise kernels (elementwise.hpp). Each is one loop, written once as an
// always-inline body; the AVX-512 entry point inlines it under the AVX-512 target, where
// the compiler vectorizes it eight doubles wide, the AVX2 one under AVX2 (four wide; FMA
// is not enabled, so no product and add could fuse even without -ffp-contract=off), and
// the portable path runs the same body under the baseline target. Compiled with
// -ffp-contract=off (CMakeLists.txt).
#include "models/cpu/elementwise.hpp"

#if defined(__x86_64__) && defined(__clang__)
#define DLSIM_AVX512 __attribute__((target("avx512f")))
#elif defined(__x86_64__) && defined(__GNUC__)  // g++ alone takes the vector width here
#define DLSIM_AVX512 __attribute__((target("avx512f,prefer-vector-width=512")))
#else
#define DLSIM_AVX512
#endif
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DLSIM_AVX2 __attribute__((target("avx2")))
#else
#define DLSIM_AVX2
#endif
#define DLSIM_INLINE [[gnu::always_inline]] inline

namespace dlsim::models::elementwise {

namespace {

DLSIM_INLINE void add_scaled_sum_body(double* x, double gamma, const double* s, double c,
                                      const double* y, Index n) {
  for (Index i = 0; i < n; ++i) x[i] = x[i] + gamma * (s[i] + c * y[i]);
}

DLSIM_INLINE void descend_body(double* x, double eta, const double* g, double lambda, Index n) {
  for (Index i = 0; i < n; ++i) x[i] = x[i] - eta * (g[i] + lambda * x[i]);
}

DLSIM_INLINE void subtract_body(double* __restrict out, const double* a, const double* b, Index n) {
  for (Index i = 0; i < n; ++i) out[i] = a[i] - b[i];
}

DLSIM_INLINE void scaled_plus_body(double* __restrict out, const double* a, double z, double f,
                                   double lambda, const double* w, Index n) {
  if (lambda == 0) {
    for (Index i = 0; i < n; ++i) out[i] = (0.0 + a[i] * z) * f;
    return;
  }
  for (Index i = 0; i < n; ++i) out[i] = (0.0 + a[i] * z) * f + lambda * w[i];
}

DLSIM_AVX512 void add_scaled_sum_avx512(double* x, double gamma, const double* s, double c,
                                        const double* y, Index n) {
  add_scaled_sum_body(x, gamma, s, c, y, n);
}

DLSIM_AVX512 void descend_avx512(double* x, double eta, const double* g, double lambda, Index n) {
  descend_body(x, eta, g, lambda, n);
}

DLSIM_AVX512 void subtract_avx512(double* out, const double* a, const double* b, Index n) {
  subtract_body(out, a, b, n);
}

DLSIM_AVX512 void scaled_plus_avx512(double* out, const double* a, double z, double f,
                                     double lambda, const double* w, Index n) {
  scaled_plus_body(out, a, z, f, lambda, w, n);
}

DLSIM_AVX2 void add_scaled_sum_avx2(double* x, double gamma, const double* s, double c,
                                    const double* y, Index n) {
  add_scaled_sum_body(x, gamma, s, c, y, n);
}

DLSIM_AVX2 void descend_avx2(double* x, double eta, const double* g, double lambda, Index n) {
  descend_body(x, eta, g, lambda, n);
}

DLSIM_AVX2 void subtract_avx2(double* out, const double* a, const double* b, Index n) {
  subtract_body(out, a, b, n);
}

DLSIM_AVX2 void scaled_plus_avx2(double* out, const double* a, double z, double f, double lambda,
                                 const double* w, Index n) {
  scaled_plus_body(out, a, z, f, lambda, w, n);
}

}  // namespace

void add_scaled_sum(double* x, double gamma, const double* s, double c, const double* y, Index n,
                    InstructionSet set) {
  if (set == InstructionSet::avx512) return add_scaled_sum_avx512(x, gamma, s, c, y, n);
  if (set == InstructionSet::avx2) return add_scaled_sum_avx2(x, gamma, s, c, y, n);
  add_scaled_sum_body(x, gamma, s, c, y, n);
}

void descend(double* x, double eta, const double* g, double lambda, Index n, InstructionSet set) {
  if (set == InstructionSet::avx512) return descend_avx512(x, eta, g, lambda, n);
  if (set == InstructionSet::avx2) return descend_avx2(x, eta, g, lambda, n);
  descend_body(x, eta, g, lambda, n);
}

void subtract(double* out, const double* a, const double* b, Index n, InstructionSet set) {
  if (set == InstructionSet::avx512) return subtract_avx512(out, a, b, n);
  if (set == InstructionSet::avx2) return subtract_avx2(out, a, b, n);
  subtract_body(out, a, b, n);
}

void scaled_plus(double* out, const double* a, double z, double f, double lambda, const double* w,
                 Index n, InstructionSet set) {
  if (set == InstructionSet::avx512) return scaled_plus_avx512(out, a, z, f, lambda, w, n);
  if (set == InstructionSet::avx2) return scaled_plus_avx2(out, a, z, f, lambda, w, n);
  scaled_plus_body(out, a, z, f, lambda, w, n);
}

}  // namespace dlsim::models::elementwise
