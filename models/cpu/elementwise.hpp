// The per-step vector passes of the small-model runs (CHOCO's consensus, the local step,
// the message's input, the one-row logistic gradient), eight doubles at a time with
// AVX-512 where the processor has it, four with AVX2. The build is x86-64 baseline, so the
// Eigen expressions these replace ran two doubles at a time (SSE2); at d in the hundreds they
// were about a quarter of a batch-1 CHOCO step (README, "Case (f), round two's seventh
// part": bound by the L2 cache there, they gained 16 %).
//
// Bit for bit: each coordinate gets the operations of the Eigen expression named at each
// kernel, in the same order, with the same roundings (elementwise.cpp is compiled with
// -ffp-contract=off: no product and add fuse), whichever path runs. No kernel sums across
// coordinates, so the vector width cannot change an order. tests/elementwise_test.cpp
// checks every path the processor has against the Eigen expressions.
#pragma once

#include "models/cpu/instruction_set.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::models::elementwise {

/// x ← x + γ(s + c·y), as Eigen's `x += γ * (s + c * y)`. All of length n.
void add_scaled_sum(double* x, double gamma, const double* s, double c, const double* y, Index n,
                    InstructionSet set = best_instruction_set());

/// x ← x − η(g + λ·x), as Eigen's `x -= η * (g + λ * x)`.
void descend(double* x, double eta, const double* g, double lambda, Index n,
             InstructionSet set = best_instruction_set());

/// out ← a − b, as Eigen's `out = a - b` (out must not overlap a or b).
void subtract(double* out, const double* a, const double* b, Index n,
              InstructionSet set = best_instruction_set());

/// out ← (0 + a·z)·f + λ·w, as Eigen's `out = (0.0 + a * z) * f + λ * w` on arrays (the
/// one-row logistic gradient; the 0 + turns −0 into +0 as a product's sum would). With
/// λ = 0 the λ·w term is left out, as Logistic leaves it out (out must not overlap a or w).
void scaled_plus(double* out, const double* a, double z, double f, double lambda, const double* w,
                 Index n, InstructionSet set = best_instruction_set());

}  // namespace dlsim::models::elementwise
