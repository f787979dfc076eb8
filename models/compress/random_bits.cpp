// The counter-based uniform stream of random_bits.hpp.
#include "models/compress/random_bits.hpp"

namespace dlsim::models {

namespace {

// r_j = mix(σ + (j+1)γ) into u[2j], u[2j+1]. With AVX-512 (64-bit vector multiplies) a
// clone does 8 outputs per instruction; integer arithmetic, so every clone agrees.
#if defined(__x86_64__) && defined(__linux__) && defined(__GNUC__) && !defined(__clang__) && \
    !defined(__SANITIZE_THREAD__)  // TSan instruments the ifunc resolver: crash at load
__attribute__((target_clones("arch=x86-64-v4", "default")))
#endif
void expand(std::uint64_t seed, std::size_t pairs, std::uint32_t* u) {
  for (std::size_t j = 0; j < pairs; ++j) {
    const std::uint64_t r = rng::splitmix64_mix(seed + (j + 1) * rng::kGoldenGamma);
    u[2 * j] = std::uint32_t(r);
    u[2 * j + 1] = std::uint32_t(r >> 32);
  }
}

}  // namespace

void draw_uniform32(std::mt19937_64& rng, std::size_t count, std::vector<std::uint32_t>& out) {
  const std::uint64_t seed = rng();
  const std::size_t pairs = (count + 1) / 2;
  out.resize(2 * pairs);
  expand(seed, pairs, out.data());
  out.resize(count);
}

}  // namespace dlsim::models
