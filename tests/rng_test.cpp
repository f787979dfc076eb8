// The random helpers of rng/ (docs/design.md §11 rule 6) against independent truth:
// SplitMix64 against the reference outputs (Python's arbitrary-precision integers);
// UniformInt, below and the shuffle against the documented formulas over raw
// mt19937_64 draws; the normal and gamma distributions against their CDFs
// (Kolmogorov–Smirnov; std::erfc, Boost.Math's gamma_p) and moments; the shuffle's
// permutations of 4 elements against the uniform law (chi-square). Pinned first draws
// of Normal and Gamma guard Boost's algorithms: if they move (a new Boost), every
// result moves, and tests/golden/ must be regenerated deliberately.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <random>
#include <vector>

#include <boost/math/special_functions/gamma.hpp>

#include "rng/distributions.hpp"
#include "rng/shuffle.hpp"
#include "rng/splitmix64.hpp"

namespace {

using dlsim::rng::Uint128;

// The documented uniform integer: one raw draw u, q = ⌊u / ⌊2⁶⁴/n⌋⌋, redrawn while q ≥ n;
// n = 1 draws nothing.
std::uint64_t reference_below(std::mt19937_64& g, std::uint64_t n) {
  if (n == 1) return 0;
  const auto bucket = std::uint64_t((Uint128(1) << 64) / n);
  for (;;) {
    const std::uint64_t q = g() / bucket;
    if (q < n) return q;
  }
}

// Fisher–Yates from the back with reference_below.
template <class T>
void reference_shuffle(std::vector<T>& a, std::mt19937_64& g) {
  for (std::size_t i = a.size(); i-- > 1;) std::swap(a[i], a[reference_below(g, i + 1)]);
}

// Kolmogorov–Smirnov statistic of `x` against the CDF `F`.
template <class Cdf>
double ks_statistic(std::vector<double> x, Cdf F) {
  std::sort(x.begin(), x.end());
  const double n = double(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = F(x[i]);
    d = std::max({d, f - double(i) / n, double(i + 1) / n - f});
  }
  return d;
}
// Asymptotic critical value of √n·D at level 0.001 (Kolmogorov distribution).
constexpr double kKs999 = 1.9495;

struct Moments {
  double mean = 0, variance = 0;
};
Moments moments(const std::vector<double>& x) {
  Moments m;
  for (double v : x) m.mean += v;
  m.mean /= double(x.size());
  for (double v : x) m.variance += (v - m.mean) * (v - m.mean);
  m.variance /= double(x.size() - 1);
  return m;
}

template <class Dist>
std::vector<double> draw(Dist dist, std::uint64_t seed, int n) {
  std::mt19937_64 g(seed);
  std::vector<double> x(static_cast<std::size_t>(n));
  for (double& v : x) v = dist(g);
  return x;
}

}  // namespace

TEST_CASE("SplitMix64 gives the reference outputs", "[rng]") {
  using namespace dlsim::rng;
  // State 0 and 1234567, outputs 1–4 (computed with Python integers from the paper's code).
  const std::array<std::uint64_t, 4> zero = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
                                             0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL};
  const std::array<std::uint64_t, 4> other = {0x599ed017fb08fc85ULL, 0x2c73f08458540fa5ULL,
                                              0x883ebce5a3f27c77ULL, 0x3fbef740e9177b3fULL};
  SplitMix64 a(0), b(1234567);
  for (int j = 0; j < 4; ++j) {
    CHECK(a.next() == zero[std::size_t(j)]);
    CHECK(b.next() == other[std::size_t(j)]);
  }
  CHECK(splitmix64(0) == zero[0]);
  CHECK(splitmix64(1234567) == other[0]);
  CHECK(splitmix64_mix(kGoldenGamma) == zero[0]);
}

TEST_CASE("the generator's raw output is the standard's", "[rng]") {
  std::mt19937_64 g;  // [rand.predef]: the 10000th output of the default-seeded engine
  g.discard(9999);
  CHECK(g() == 9981545732273789042ULL);
}

TEST_CASE("UniformInt and below follow the documented formula", "[rng]") {
  using dlsim::rng::below;
  using dlsim::rng::UniformInt;
  for (const std::uint64_t n :
       {1ULL, 2ULL, 3ULL, 7ULL, 10ULL, 1000ULL, (1ULL << 40) + 3, (1ULL << 63) + 12345}) {
    std::mt19937_64 g(42 + n), h(42 + n);
    for (int k = 0; k < 2000; ++k) {
      const std::uint64_t want = reference_below(h, n);
      if (n < (1ULL << 62)) {
        REQUIRE(std::uint64_t(below(g, std::int64_t(n))) == want);
      } else {
        REQUIRE(UniformInt<std::uint64_t>(0, n - 1)(g) == want);
      }
    }
    CHECK(g() == h());  // the same number of draws consumed
  }
  // An offset range [a, b] is a + below(b − a + 1), whatever the integer type.
  std::mt19937_64 g(7), h(7);
  for (int k = 0; k < 2000; ++k) {
    REQUIRE(UniformInt<int>(-5, 4)(g) == -5 + int(reference_below(h, 10)));
  }
}

TEST_CASE("the shuffle is the documented Fisher–Yates", "[rng]") {
  for (int n : {0, 1, 2, 3, 10, 257}) {
    std::vector<int> a(static_cast<std::size_t>(n)), b;
    std::iota(a.begin(), a.end(), 0);
    b = a;
    std::mt19937_64 g(99), h(99);
    for (int round = 0; round < 20; ++round) {
      dlsim::rng::shuffle(a.begin(), a.end(), g);
      reference_shuffle(b, h);
      REQUIRE(a == b);
    }
    CHECK(g() == h());
  }
  // Pinned: a shuffle that moves means every data split, partition and batch moves.
  std::vector<int> a(10);
  std::iota(a.begin(), a.end(), 0);
  std::mt19937_64 g(2024);
  dlsim::rng::shuffle(a.begin(), a.end(), g);
  CHECK(a == std::vector<int>{9, 4, 1, 3, 5, 0, 8, 2, 7, 6});
}

TEST_CASE("the shuffle is uniform over the permutations of 4 elements", "[rng]") {
  constexpr int kRounds = 240000;  // 10,000 expected per permutation
  std::map<std::array<int, 4>, int> count;
  std::mt19937_64 g(5);
  for (int r = 0; r < kRounds; ++r) {
    std::array<int, 4> p = {0, 1, 2, 3};
    dlsim::rng::shuffle(p.begin(), p.end(), g);
    ++count[p];
  }
  REQUIRE(count.size() == 24);
  const double expected = kRounds / 24.0;
  double chi2 = 0;
  for (const auto& [p, c] : count) chi2 += (c - expected) * (c - expected) / expected;
  CHECK(chi2 < 49.73);  // the 0.999 quantile of chi-square with 23 degrees of freedom
}

TEST_CASE("Normal has the normal law", "[rng]") {
  constexpr int n = 200000;
  const auto z = draw(dlsim::rng::Normal(0.0, 1.0), 11, n);
  const double d = ks_statistic(z, [](double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); });
  CHECK(std::sqrt(double(n)) * d < kKs999);
  const Moments m = moments(z);
  CHECK(std::abs(m.mean) < 5 / std::sqrt(double(n)));
  CHECK(std::abs(m.variance - 1) < 5 * std::sqrt(2.0 / n));
  // The tails (the ziggurat's base strip and wedges): P(|Z| > 3) = 0.0026998.
  const double tail =
      double(std::count_if(z.begin(), z.end(), [](double x) { return std::abs(x) > 3; })) / n;
  CHECK(std::abs(tail - 0.0026998) < 5 * std::sqrt(0.0027 / n));
  // Location and scale.
  const Moments s = moments(draw(dlsim::rng::Normal(2.0, 3.0), 12, n));
  CHECK(std::abs(s.mean - 2) < 5 * 3 / std::sqrt(double(n)));
  CHECK(std::abs(s.variance - 9) < 5 * 9 * std::sqrt(2.0 / n));
}

TEST_CASE("Gamma has the gamma law", "[rng]") {
  constexpr int n = 100000;
  for (double alpha : {0.1, 0.5, 1.0, 2.5, 10.0}) {
    CAPTURE(alpha);
    const auto x = draw(dlsim::rng::Gamma(alpha, 1.0), 13, n);
    const double d = ks_statistic(x, [alpha](double v) { return boost::math::gamma_p(alpha, v); });
    CHECK(std::sqrt(double(n)) * d < kKs999);
    const Moments m = moments(x);  // mean α, variance α, kurtosis 3 + 6/α
    CHECK(std::abs(m.mean - alpha) < 5 * std::sqrt(alpha / n));
    CHECK(std::abs(m.variance / alpha - 1) < 5 * std::sqrt((2 + 6 / alpha) / n));
  }
  const Moments s = moments(draw(dlsim::rng::Gamma(2.5, 4.0), 14, n));  // scale β = 4
  CHECK(std::abs(s.mean - 10) < 5 * std::sqrt(2.5 * 16 / n));
}

TEST_CASE("Boost's normal and gamma draws are pinned", "[rng]") {
  // Boost 1.74's output for these seeds. A change here is a change of Boost's algorithm:
  // every result of dlsim changes with it (regenerate tests/golden/ deliberately).
  std::mt19937_64 g(2024);
  dlsim::rng::Normal normal(0.0, 1.0);
  dlsim::rng::Gamma gamma_small(0.3, 1.0), gamma_large(2.5, 1.0);
  const std::vector<double> got = {normal(g),      normal(g),      normal(g),     gamma_small(g),
                                   gamma_small(g), gamma_large(g), gamma_large(g)};
  const std::vector<double> pinned = {
      -0x1.4d033f9781fd4p+0, 0x1.37e71166bd8c1p+0, 0x1.23a7f19ef9da7p-1, 0x1.e376a0e4dc017p-1,
      0x1.128954f4487e9p-18, 0x1.a6b212589ff4ap+1, 0x1.1441b6b34c6eep+0};
  CHECK(got == pinned);
}
