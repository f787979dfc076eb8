// Whether this processor runs the AVX-512 kernels (byte-code evaluation, top-k selection):
// the build stays x86-64 baseline, those kernels carry target attributes and are chosen
// at run time by this one check.
#pragma once

namespace dlsim::models {

/// AVX-512 F and BW (every AVX-512 processor since Skylake-SP has both), checked once.
bool avx512_available();

}  // namespace dlsim::models
