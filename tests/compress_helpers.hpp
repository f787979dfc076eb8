// Test helper for the compressor tests: the vectors every kind must survive (zeros,
// ties, 1e-30 and 1e30 extremes, all-equal, all-zero, one coordinate), and the
// uniforms of stochastic rounding re-derived from the rng independently of
// models/compress/random_bits.hpp.
#pragma once

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Dense>

namespace dlsim::test {

struct NamedVector {
  std::string name;
  Eigen::VectorXd v;
};

inline Eigen::VectorXd gaussian(Eigen::Index d, std::uint64_t seed, double scale = 1.0) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, scale);
  Eigen::VectorXd v(d);
  for (auto& x : v) x = normal(rng);
  return v;
}

/// The awkward vectors of dimension d (d ≥ 1).
inline std::vector<NamedVector> awkward_vectors(Eigen::Index d, std::uint64_t seed) {
  std::vector<NamedVector> out;
  out.push_back({"gaussian", gaussian(d, seed)});
  Eigen::VectorXd zeros_in = gaussian(d, seed + 1);
  for (Eigen::Index k = 0; k < d; k += 3) zeros_in(k) = 0.0;
  out.push_back({"with zeros", zeros_in});
  Eigen::VectorXd ties(d);
  for (Eigen::Index k = 0; k < d; ++k) ties(k) = double(int(k % 5) - 2) * 0.25;  // ±0.5, ±0.25, 0
  out.push_back({"ties", ties});
  Eigen::VectorXd extremes = gaussian(d, seed + 2);
  for (Eigen::Index k = 0; k < d; ++k) {
    if (k % 4 == 0) extremes(k) = 1e-30 * (k % 8 == 0 ? 1 : -1);
    if (k % 4 == 1) extremes(k) = 1e30 * (k % 8 == 1 ? 1 : -1);
  }
  out.push_back({"1e-30 and 1e30", extremes});
  out.push_back({"tiny only", Eigen::VectorXd::Constant(d, 1e-30) + 1e-31 * gaussian(d, seed + 3)});
  out.push_back({"all equal", Eigen::VectorXd::Constant(d, -3.75)});
  out.push_back({"all zero", Eigen::VectorXd::Zero(d)});
  return out;
}

/// u_k as a 32-bit integer: one 64-bit seed from rng, expanded by SplitMix64 (Steele et
/// al. 2014, reference code: state += 0x9e3779b97f4a7c15, then the two xor-shift-multiply
/// rounds); each output gives two uniforms, low half first.
inline std::vector<std::uint32_t> reference_uniforms(std::mt19937_64& rng, std::size_t count) {
  std::uint64_t state = rng();
  std::vector<std::uint32_t> u;
  while (u.size() < count) {
    state += 0x9e3779b97f4a7c15ULL;
    std::uint64_t z = state;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z = z ^ (z >> 31);
    u.push_back(std::uint32_t(z & 0xffffffffu));
    if (u.size() < count) u.push_back(std::uint32_t(z >> 32));
  }
  return u;
}

/// True when a and b are equal coordinate by coordinate, bit for bit (±0 distinguished).
inline bool bitwise_equal(const Eigen::VectorXd& a, const Eigen::VectorXd& b) {
  if (a.size() != b.size()) return false;
  for (Eigen::Index k = 0; k < a.size(); ++k) {
    std::uint64_t x, y;
    std::memcpy(&x, &a(k), 8);
    std::memcpy(&y, &b(k), 8);
    if (x != y) return false;
  }
  return true;
}

}  // namespace dlsim::test
