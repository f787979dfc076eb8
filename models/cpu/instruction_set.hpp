// Which vector instructions this processor runs: the build stays x86-64 baseline, and the
// kernels that go wider (byte-code evaluation, top-k selection, the elementwise passes,
// the dense layers' product) carry target attributes and are chosen at run time by this
// one check. Every wider kernel gives the baseline kernel's results bit for bit.
#pragma once

#include <vector>

namespace dlsim::models {

/// The instruction sets the kernels are written for, from the narrowest.
enum class InstructionSet {
  baseline,  ///< x86-64 (SSE2), or plain C++ elsewhere
  avx2,      ///< AVX2 with FMA, BMI2 and POPCNT (Haswell, Zen and later)
  avx512,    ///< AVX-512 F and BW (every AVX-512 processor since Skylake-SP has both)
};

/// The widest instruction set this processor runs, checked once.
InstructionSet best_instruction_set();

/// The sets this processor runs, baseline first (tests run every kernel on each).
std::vector<InstructionSet> available_instruction_sets();

/// "baseline", "avx2" or "avx512".
const char* instruction_set_name(InstructionSet set);

/// AVX-512 F and BW, checked once.
inline bool avx512_available() {
  return best_instruction_set() == InstructionSet::avx512;
}

}  // namespace dlsim::models
