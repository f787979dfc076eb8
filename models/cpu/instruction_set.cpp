// The run-time instruction-set check (instruction_set.hpp).
#include "models/cpu/instruction_set.hpp"

namespace dlsim::models {

namespace {
InstructionSet check() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw"))
    return InstructionSet::avx512;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
      __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt"))
    return InstructionSet::avx2;
#endif
  return InstructionSet::baseline;
}
}  // namespace

InstructionSet best_instruction_set() {
  static const InstructionSet best = check();
  return best;
}

std::vector<InstructionSet> available_instruction_sets() {
  std::vector<InstructionSet> sets{InstructionSet::baseline};
  if (best_instruction_set() >= InstructionSet::avx2) sets.push_back(InstructionSet::avx2);
  if (best_instruction_set() >= InstructionSet::avx512) sets.push_back(InstructionSet::avx512);
  return sets;
}

const char* instruction_set_name(InstructionSet set) {
  switch (set) {
    case InstructionSet::baseline:
      return "baseline";
    case InstructionSet::avx2:
      return "avx2";
    case InstructionSet::avx512:
      return "avx512";
  }
  return "?";
}

}  // namespace dlsim::models
