// The elementwise kernels (models/cpu/elementwise.hpp) against the Eigen expressions they
// replace, bit for bit: both the portable and the AVX-512 path, at every length around the
// eight-double step, from unaligned starts, on values that include ±0, subnormals and
// magnitudes far apart (where a fused multiply-add or another order would show).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "models/cpu/elementwise.hpp"
#include "models/cpu/instruction_set.hpp"

namespace {

using dlsim::models::Index;
namespace ew = dlsim::models::elementwise;
using Array = Eigen::ArrayXd;

// n values: mostly random magnitudes over 2^-30 .. 2^30 of either sign, with ±0 and
// subnormals mixed in.
Array awkward_values(Index n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> exponent(-30, 30), unit(-1, 1);
  Array v(n);
  for (Index i = 0; i < n; ++i) {
    switch (rng() % 8) {
      case 0:
        v(i) = 0.0;
        break;
      case 1:
        v(i) = -0.0;
        break;
      case 2:
        v(i) = std::numeric_limits<double>::denorm_min() * double(rng() % 1000);
        break;
      default:
        v(i) = unit(rng) * std::exp2(exponent(rng));
    }
  }
  return v;
}

bool same_bits(const double* a, const double* b, Index n) {
  return n == 0 || std::memcmp(a, b, std::size_t(n) * sizeof(double)) == 0;  // empty: no data
}

// The paths this processor can run: baseline always, AVX2 and AVX-512 when it has them.
std::vector<dlsim::models::InstructionSet> paths() {
  const auto sets = dlsim::models::available_instruction_sets();
  if (!dlsim::models::avx512_available())
    WARN("this processor has no AVX-512: its path did not run (best: "
         << dlsim::models::instruction_set_name(sets.back()) << ")");
  return sets;
}

}  // namespace

TEST_CASE("elementwise kernels give the Eigen expressions' bits") {
  std::mt19937_64 rng(18);
  const double scalars[] = {0.1, -0.0, 3.0, -1.0 / 3};
  int compared = 0;
  for (const dlsim::models::InstructionSet set : paths()) {
    for (const Index n : {0, 1, 7, 8, 9, 15, 16, 17, 785, 1001}) {
      for (const Index start : {0, 1, 3}) {
        CAPTURE(dlsim::models::instruction_set_name(set), n, start);
        // Unaligned views: each vector starts `start` doubles into its own buffer.
        Array xb = awkward_values(n + start, rng), sb = awkward_values(n + start, rng),
              yb = awkward_values(n + start, rng);
        const auto s = sb.segment(start, n), y = yb.segment(start, n);
        const double a = scalars[rng() % 4], b = scalars[rng() % 4];

        Array x = xb, expected = xb;
        expected.segment(start, n) += a * (s + b * y);
        ew::add_scaled_sum(x.data() + start, a, s.data(), b, y.data(), n, set);
        CHECK(same_bits(x.data(), expected.data(), n + start));

        x = xb;
        expected = xb;
        expected.segment(start, n) -= a * (s + b * expected.segment(start, n));
        ew::descend(x.data() + start, a, s.data(), b, n, set);
        CHECK(same_bits(x.data(), expected.data(), n + start));

        Array out = Array::Constant(n, 7.0);
        const Array difference = s - y;
        ew::subtract(out.data(), s.data(), y.data(), n, set);
        CHECK(same_bits(out.data(), difference.data(), n));

        for (const double lambda : {0.0, b}) {
          const Array scaled = (0.0 + s * a) * b;
          const Array gradient = lambda != 0 ? Array(scaled + lambda * y) : scaled;
          ew::scaled_plus(out.data(), s.data(), a, b, lambda, y.data(), n, set);
          CHECK(same_bits(out.data(), gradient.data(), n));
        }
        ++compared;
      }
    }
  }
  CHECK(compared >= 30);
}
