// The random streams compressors draw from, fixed here so that tests can write
// independent reference quantizers that see the same numbers.
//
// Stochastic rounding (qsgd, lpc, terngrad) uses one uniform u_k ∈ [0, 1) per
// coordinate k of the message: one 64-bit seed σ is drawn from the rng passed to encode,
// r_j = SplitMix64 output j from state σ, i.e. mix(σ + (j+1)·0x9e3779b97f4a7c15), and
// u_{2j} = low32(r_j)·2⁻³², u_{2j+1} = high32(r_j)·2⁻³². (A counter-based expansion: one
// mt19937_64 draw per pair of coordinates cost a third of the encode time.) A coordinate
// rounds up when u_k < its fractional part.
//
// random-k draws one 64-bit seed from that rng and sends it; both sides expand it with
// SplitMix64 (Steele, Lea, Flood, OOPSLA 2014) and choose indices with Floyd's
// sampling algorithm (Bentley & Floyd, CACM 30(9), 1987), using Lemire's unbiased
// multiply-shift bounded integers (ACM TOMACS 29(1), 2019).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "rng/splitmix64.hpp"

namespace dlsim::models {

/// Fills `out` with `count` 32-bit uniforms expanded from one draw of rng (see above).
void draw_uniform32(std::mt19937_64& rng, std::size_t count, std::vector<std::uint32_t>& out);

}  // namespace dlsim::models
