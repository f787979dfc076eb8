// The distributions every random draw of dlsim goes through (docs/design.md §11 rule 6):
// Boost.Random's, not std::'s. The standard fixes the raw output of std::mt19937_64 (the
// generator of every stream, sim/engine/rng.hpp) but leaves the algorithms of
// std::normal_distribution, std::gamma_distribution and std::uniform_int_distribution to
// each standard library; Boost's are its own code, so the same generator gives the same
// numbers with libstdc++, libc++ or MSVC's library (for one Boost version; 1.74 here):
//   Normal      128-layer ziggurat (Marsaglia & Tsang, J. Stat. Softw. 5(8), 2000), one
//               64-bit draw per accepted sample on the fast path;
//   Gamma(α, β) α = 1: exponential; α > 1: rejection from a tan(πU) (Cauchy-like)
//               proposal, Knuth TAOCP 2 §3.4.1; α < 1: Ahrens–Dieter rejection;
//   UniformReal [a, b): a + (b − a)·(u − min)/(max − min + 1) on one raw draw u, redrawn
//               in the rare case it rounds to b;
//   UniformInt  [a, b]: one 64-bit draw u, ⌊u / ⌊2⁶⁴/(b − a + 1)⌋⌋ + a, redrawn when the
//               quotient exceeds b − a (no modulo bias).
// The rare rejection steps of Normal and Gamma call exp, log, tan and pow, so those draws
// also depend on the C math library, as the simulator's own math does.
#pragma once

#include <cstdint>

#include <boost/random/gamma_distribution.hpp>
#include <boost/random/normal_distribution.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_real_distribution.hpp>

namespace dlsim::rng {

using Normal = boost::random::normal_distribution<double>;  // Normal(mean, sd)
using Gamma = boost::random::gamma_distribution<double>;    // Gamma(shape α, scale β)
template <class Int>
using UniformInt = boost::random::uniform_int_distribution<Int>;       // UniformInt(a, b): [a, b]
using UniformReal = boost::random::uniform_real_distribution<double>;  // [a, b)

/// A uniform integer in [0, n), n ≥ 1.
template <class Engine>
std::int64_t below(Engine& rng, std::int64_t n) {
  return UniformInt<std::int64_t>(0, n - 1)(rng);
}

}  // namespace dlsim::rng
