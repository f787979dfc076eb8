// fp16, sign and the stochastic quantizers (lpc, qsgd, terngrad) against independent
// reference implementations written here: decode(encode(v)) equals the reference's
// quantized vector bit for bit for the same random stream; sizes equal the formulas of
// docs/algorithms.md §1; unbiasedness and variance bounds by Monte Carlo; TernGrad, QSGD and
// ZipML's uniform quantizer are special cases of lpc.
#include <catch2/catch.hpp>

#include <bit>
#include <cfloat>
#include <cmath>
#include <map>
#include <random>

#include "compress_helpers.hpp"
#include "models/compress/bit_stream.hpp"
#include "models/compress/quantizers.hpp"

using namespace dlsim::models;
using dlsim::test::awkward_vectors;
using dlsim::test::bitwise_equal;
using dlsim::test::gaussian;

namespace {

const std::vector<Eigen::Index> kSizes = {1, 7, 1000, 1000000};

Eigen::VectorXd round_trip(Compressor& c, const Eigen::VectorXd& v, std::mt19937_64& rng,
                           std::uint64_t* bits = nullptr) {
  const Encoded m = c.encode(v, rng);
  REQUIRE(m.bytes.size() == (m.bits + 7) / 8);
  REQUIRE(m.dimension == v.size());
  if (bits) *bits = m.bits;
  Eigen::VectorXd out;
  c.decode(m, out);
  return out;
}

// ---- reference stochastic quantizer (docs/algorithms.md §1.1, written from the text) ----
enum class Rule { max, norm, fixed, std };

float smallest_float_at_least(double x) {
  if (x >= double(FLT_MAX)) return FLT_MAX;
  float f = float(x);
  if (double(f) < x) f = std::nextafterf(f, INFINITY);
  return f;
}

double reference_range(const double* v, Eigen::Index n, Rule rule, double c) {
  double max = 0, sum_sq = 0, sum = 0;
  for (Eigen::Index k = 0; k < n; ++k) {
    max = std::max(max, std::fabs(v[k]));
    sum_sq += v[k] * v[k];
    sum += v[k];
  }
  if (rule == Rule::max) return max;
  if (rule == Rule::norm) return std::sqrt(sum_sq);
  if (rule == Rule::fixed) return c;
  const double mean = sum / double(n);
  double var = 0;
  for (Eigen::Index k = 0; k < n; ++k) var += (v[k] - mean) * (v[k] - mean);
  return std::min(max, c * std::sqrt(var / double(n)));
}

Eigen::VectorXd reference_quantize(const Eigen::VectorXd& v, std::int64_t s, Rule rule, double c,
                                   Eigen::Index bucket, std::mt19937_64& rng) {
  const Eigen::Index d = v.size(), n = bucket > 0 ? bucket : d;
  const auto u = dlsim::test::reference_uniforms(rng, std::size_t(d));
  Eigen::VectorXd out(d);
  for (Eigen::Index begin = 0; begin < d; begin += n) {
    const Eigen::Index end = std::min(d, begin + n);
    const double theta = smallest_float_at_least(reference_range(&v(begin), end - begin, rule, c));
    for (Eigen::Index k = begin; k < end; ++k) {
      if (theta == 0) {
        out(k) = 0;
        continue;
      }
      const double clipped = std::min(std::fabs(v(k)), theta);
      const double x = double(s) * clipped / theta;
      const double low = std::floor(x);
      double level = low + (double(u[std::size_t(k)]) / 4294967296.0 < x - low ? 1 : 0);
      level = std::min(level, double(s));
      const double magnitude = theta * level / double(s);
      out(k) = level == 0 ? 0.0 : (v(k) < 0 ? -magnitude : magnitude);
    }
  }
  return out;
}

// TernGrad as in Wen et al. (2017), Alg. 1 with the gradient clipping of §3.3:
// g ← clip(g, ±2.5σ); s_t = ‖g‖∞; out = s_t·sign(g)∘b, b_k ~ Bernoulli(|g_k|/s_t).
Eigen::VectorXd reference_terngrad(const Eigen::VectorXd& v, std::mt19937_64& rng) {
  const Eigen::Index d = v.size();
  const auto u = dlsim::test::reference_uniforms(rng, std::size_t(d));
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(d);
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  const double sigma = std::sqrt(var / double(d));
  double st = 0;
  Eigen::VectorXd g(d);
  for (Eigen::Index k = 0; k < d; ++k) {
    g(k) = std::clamp(v(k), -2.5 * sigma, 2.5 * sigma);
    st = std::max(st, std::fabs(g(k)));
  }
  const double scale = smallest_float_at_least(st);
  Eigen::VectorXd out = Eigen::VectorXd::Zero(d);
  for (Eigen::Index k = 0; k < d; ++k) {
    if (scale == 0) continue;
    const bool b =
        double(u[std::size_t(k)]) / 4294967296.0 < std::min(std::fabs(g(k)), scale) / scale;
    if (b) out(k) = g(k) < 0 ? -scale : scale;
  }
  return out;
}

// QSGD (Alistarh et al. 2017, §3.1): Q_s(v_i) = ‖v‖₂·sgn(v_i)·ξ_i(v, s), ξ_i = l/s or
// (l+1)/s with probability s|v_i|/‖v‖₂ − l.
Eigen::VectorXd reference_qsgd(const Eigen::VectorXd& v, std::int64_t s, std::mt19937_64& rng) {
  const auto u = dlsim::test::reference_uniforms(rng, std::size_t(v.size()));
  double norm = 0;
  for (double x : v) norm += x * x;
  const double theta = smallest_float_at_least(std::sqrt(norm));
  Eigen::VectorXd out = Eigen::VectorXd::Zero(v.size());
  if (theta == 0) return out;
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    const double r = double(s) * std::min(std::fabs(v(k)), theta) / theta;
    double l = std::floor(r);
    if (double(u[std::size_t(k)]) / 4294967296.0 < r - l) l += 1;
    l = std::min(l, double(s));
    if (l > 0) out(k) = (v(k) < 0 ? -1 : 1) * (theta * l / double(s));
  }
  return out;
}

std::uint64_t lpc_bits(Eigen::Index d, int b, Eigen::Index bucket) {
  const Eigen::Index n = bucket > 0 ? bucket : d;
  return 32 * std::uint64_t((d + n - 1) / n) + std::uint64_t(d) * std::uint64_t(b);
}

}  // namespace

// ------------------------------------------------------------------ fp16
TEST_CASE("fp16: round to nearest even as the compiler's _Float16, saturating at 65504") {
  Fp16Compressor c;
  std::mt19937_64 rng(1);
  for (const auto d : kSizes) {
    for (const auto& [name, v] : awkward_vectors(d, 5)) {
      INFO(name << ", d = " << d);
      std::uint64_t bits = 0;
      const Eigen::VectorXd out = round_trip(c, v, rng, &bits);
      CHECK(bits == 16 * std::uint64_t(d));
      CHECK(c.bits_for(d) == bits);
      Eigen::VectorXd expected(d);
      for (Eigen::Index k = 0; k < d; ++k) {
        __extension__ const _Float16 h = static_cast<_Float16>(v(k));
        expected(k) = std::fabs(v(k)) >= 65504.0 ? std::copysign(65504.0, v(k)) : double(h);
      }
      CHECK(bitwise_equal(out, expected));
    }
  }
  // ties to even at the half-way points between neighbouring halves: 1 + 2^-11 → 1
  Eigen::VectorXd v(4);
  v << 1.0 + 0x1p-11, 1.0 + 3 * 0x1p-11, 65519.0, -1e30;
  const Eigen::VectorXd out = round_trip(c, v, rng);
  CHECK(out(0) == 1.0);
  CHECK(out(1) == 1.0 + 4 * 0x1p-11);
  CHECK(out(2) == 65504.0);
  CHECK(out(3) == -65504.0);
  CHECK(c.all_reducible());
  CHECK_FALSE(c.unbiased());
}

TEST_CASE("fp16: every finite half value survives from_half_bits then to_half_bits") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if (((h >> 10) & 0x1f) == 0x1f) continue;  // inf and NaN
    REQUIRE(to_half_bits(from_half_bits(std::uint16_t(h))) == h);
  }
}

// ------------------------------------------------------------------ sign
TEST_CASE("sign: (||v||_1/d)·sgn(v) with sgn(0) = +1, 32 + d bits") {
  SignCompressor c;
  std::mt19937_64 rng(2);
  for (const auto d : kSizes) {
    for (const auto& [name, v] : awkward_vectors(d, 6)) {
      INFO(name << ", d = " << d);
      std::uint64_t bits = 0;
      const Eigen::VectorXd out = round_trip(c, v, rng, &bits);
      CHECK(bits == 32 + std::uint64_t(d));
      CHECK(c.bits_for(d) == bits);
      double l1 = 0;
      for (double x : v) l1 += std::fabs(x);
      const auto scale = double(float(l1 / double(d)));
      bool all = true;
      for (Eigen::Index k = 0; k < d; ++k) all = all && out(k) == (v(k) < 0 ? -scale : scale);
      CHECK(all);
    }
  }
}

// ------------------------------------------------------------------ lpc / qsgd / terngrad
TEST_CASE("lpc: decode(encode(v)) is the reference quantization for every clip rule") {
  struct Case {
    int bits;
    ClipRule rule;
    Rule reference;
    double c;
    Eigen::Index bucket;
  };
  const std::vector<Case> cases = {
      {2, ClipRule::max, Rule::max, 1, 0},   {4, ClipRule::max, Rule::max, 1, 0},
      {8, ClipRule::norm, Rule::norm, 1, 0}, {3, ClipRule::fixed, Rule::fixed, 0.5, 0},
      {5, ClipRule::std, Rule::std, 2.5, 0}, {4, ClipRule::max, Rule::max, 1, 100},
      {32, ClipRule::max, Rule::max, 1, 0},  {6, ClipRule::norm, Rule::norm, 1, 7},
  };
  for (const auto& cs : cases) {
    StochasticQuantizer q(lpc_options(cs.bits, cs.rule, cs.c, cs.bucket));
    const std::int64_t s = (std::int64_t(1) << (cs.bits - 1)) - 1;
    for (const auto d : kSizes) {
      if (d == 1000000 && cs.bits != 4) continue;  // the large size once is enough
      for (const auto& [name, v] : awkward_vectors(d, 7)) {
        INFO(name << ", d = " << d << ", bits = " << cs.bits << ", bucket = " << cs.bucket);
        std::mt19937_64 rng(100 + std::uint64_t(d)), reference_rng(100 + std::uint64_t(d));
        std::uint64_t bits = 0;
        const Eigen::VectorXd out = round_trip(q, v, rng, &bits);
        CHECK(bits == lpc_bits(d, cs.bits, cs.bucket));
        CHECK(q.bits_for(d) == bits);
        CHECK(bitwise_equal(
            out, reference_quantize(v, s, cs.reference, cs.c, cs.bucket, reference_rng)));
        CHECK(rng == reference_rng);  // one draw (the seed), nothing else
      }
    }
  }
}

TEST_CASE("lpc: bits auto is 1 + ceil(log2(ceil(sqrt(n)) + 1)) with s = ceil(sqrt(n))") {
  for (const Eigen::Index d : {1, 2, 4, 5, 16, 17, 1000, 65536, 1000000}) {
    StochasticQuantizer q(lpc_options(0, ClipRule::max, 1, 0));
    const auto s = std::int64_t(std::ceil(std::sqrt(double(d)) - 1e-12));
    CHECK(q.levels_for(d) == s);
    const int b = 1 + int(std::ceil(std::log2(double(s) + 1) - 1e-12));
    CHECK(q.bits_for(d) == 32 + std::uint64_t(d) * std::uint64_t(b));
  }
  CHECK(ceil_sqrt(999999) == 1000);
  CHECK(ceil_sqrt(1000000) == 1000);
  CHECK(ceil_sqrt(1000001) == 1001);
  StochasticQuantizer bucketed(lpc_options(0, ClipRule::max, 1, 100));
  CHECK(bucketed.levels_for(12345) == 10);  // from the bucket size
  std::mt19937_64 rng(9), reference_rng(9);
  const Eigen::VectorXd v = gaussian(1000, 9);
  const Eigen::VectorXd out = round_trip(bucketed, v, rng);
  CHECK(bitwise_equal(out, reference_quantize(v, 10, Rule::max, 1, 100, reference_rng)));
}

TEST_CASE("lpc is TernGrad at b = 2 with std clipping (c = 2.5), bit for bit") {
  StochasticQuantizer lpc(lpc_options(2, ClipRule::std, 2.5, 0));
  StochasticQuantizer terngrad(terngrad_options());
  for (const auto d : kSizes) {
    for (const auto& [name, v] : awkward_vectors(d, 8)) {
      INFO(name << ", d = " << d);
      std::mt19937_64 a(d), b(d), ref(d);
      std::uint64_t bits = 0;
      const Eigen::VectorXd from_lpc = round_trip(lpc, v, a, &bits);
      CHECK(bits == 32 + 2 * std::uint64_t(d));
      CHECK(bitwise_equal(from_lpc, round_trip(terngrad, v, b)));
      CHECK(bitwise_equal(from_lpc, reference_terngrad(v, ref)));
    }
  }
}

TEST_CASE("lpc with the norm rule is QSGD with s = 2^(b-1) - 1 levels, bit for bit") {
  for (const int b : {2, 3, 5, 9}) {
    const std::int64_t s = (std::int64_t(1) << (b - 1)) - 1;
    StochasticQuantizer lpc(lpc_options(b, ClipRule::norm, 1, 0));
    StochasticQuantizer qsgd(qsgd_options(s, 0, false, false));
    for (const auto d : {Eigen::Index(1), Eigen::Index(7), Eigen::Index(1000)}) {
      for (const auto& [name, v] : awkward_vectors(d, 9)) {
        INFO(name << ", d = " << d << ", b = " << b);
        std::mt19937_64 x(d), y(d), ref(d);
        std::uint64_t bits = 0;
        const Eigen::VectorXd from_lpc = round_trip(lpc, v, x, &bits);
        // QSGD fixed coding: 32 + d(1 + ⌈log2(s+1)⌉)
        CHECK(bits == 32 + std::uint64_t(d) * std::uint64_t(1 + std::ceil(std::log2(s + 1.0))));
        CHECK(bitwise_equal(from_lpc, round_trip(qsgd, v, y)));
        CHECK(bitwise_equal(from_lpc, reference_qsgd(v, s, ref)));
      }
    }
  }
}

TEST_CASE("lpc with the max rule has ZipML's uniform quantizer's output distribution") {
  // ZipML (Zhang et al., ICML 2017): grid of 2s+1 points on [-M, M], M = ||v||_inf;
  // x rounds to the neighbouring grid point above with probability (x - low)/step.
  // Its exact output law per coordinate is compared with lpc's empirical frequencies.
  const std::int64_t s = 3;
  Eigen::VectorXd v(6);
  v << 0.8, -0.33, 0.05, -1.0, 0.0, 0.61;
  const double m = double(smallest_float_at_least(1.0));
  const double step = m / double(s);
  StochasticQuantizer lpc(lpc_options(3, ClipRule::max, 1, 0));
  std::mt19937_64 rng(10);
  const int trials = 40000;
  std::vector<std::map<double, int>> counts(6);
  for (int t = 0; t < trials; ++t) {
    const Eigen::VectorXd out = round_trip(lpc, v, rng);
    for (int k = 0; k < 6; ++k) ++counts[std::size_t(k)][out(k)];
  }
  for (int k = 0; k < 6; ++k) {
    const double position = (v(k) + m) / step;  // in [0, 2s]
    const double low = std::floor(position);
    const double p_up = position - low;
    const double low_value = -m + low * step, high_value = -m + (low + 1) * step;
    double seen = 0;
    for (const auto& [value, count] : counts[std::size_t(k)]) {
      const double p = std::fabs(value - low_value) < 1e-12    ? 1 - p_up
                       : std::fabs(value - high_value) < 1e-12 ? p_up
                                                               : 0;
      INFO("coordinate " << k << " value " << value);
      CHECK(std::fabs(double(count) / trials - p) <= 5 * std::sqrt(p * (1 - p) / trials) + 1e-9);
      seen += count;
    }
    CHECK(seen == trials);
  }
}

namespace {

// Mean of Q(v) − v over `trials` draws, its largest coordinate, and the mean ‖Q(v) − v‖².
struct MonteCarlo {
  double max_mean_error = 0;
  double mean_squared_error = 0;
};

MonteCarlo monte_carlo(Compressor& c, const Eigen::VectorXd& v, int trials, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(v.size()), out;
  double sq = 0;
  for (int t = 0; t < trials; ++t) {
    c.decode(c.encode(v, rng), out);
    sum += out;
    sq += (out - v).squaredNorm();
  }
  return {(sum / trials - v).cwiseAbs().maxCoeff(), sq / trials};
}

}  // namespace

TEST_CASE("qsgd and lpc (max, norm) are unbiased: mean error shrinks like 1/sqrt(trials)") {
  const Eigen::VectorXd v = gaussian(16, 21);
  struct Setting {
    const char* name;
    QuantizerOptions options;
  };
  const std::vector<Setting> settings = {{"qsgd s=2", qsgd_options(2, 0, false, false)},
                                         {"qsgd elias s=4", qsgd_options(4, 0, true, false)},
                                         {"lpc max b=3", lpc_options(3, ClipRule::max, 1, 0)},
                                         {"lpc norm b=2", lpc_options(2, ClipRule::norm, 1, 0)}};
  for (const auto& [name, options] : settings) {
    StochasticQuantizer q(options);
    CHECK(q.unbiased());
    const double theta = options.clip == ClipRule::max ? v.cwiseAbs().maxCoeff() : v.norm();
    const double s = double(q.levels_for(16));
    // per coordinate Var ≤ θ²/(4s²): the mean of T draws is within 5σ/√T
    for (const int trials : {1000, 100000}) {
      INFO(name << ", trials = " << trials);
      const auto mc = monte_carlo(q, v, trials, 22);
      CHECK(mc.max_mean_error <= 5 * theta / (2 * s) / std::sqrt(double(trials)));
    }
  }
  // the check can fail: a clipping θ below ||v||_inf is biased, and 10^5 trials see it
  StochasticQuantizer clipped(lpc_options(3, ClipRule::fixed, 0.5 * v.cwiseAbs().maxCoeff(), 0));
  CHECK_FALSE(clipped.unbiased());
  const auto mc = monte_carlo(clipped, v, 100000, 23);
  CHECK(mc.max_mean_error > 5 * v.cwiseAbs().maxCoeff() / 6 / std::sqrt(1e5));
}

TEST_CASE("variance bounds: QSGD min(d/s², √d/s)||v||², LPC d·θ²/(4s²)") {
  for (const Eigen::Index d : {16, 400}) {
    const Eigen::VectorXd v = gaussian(d, 31);
    for (const std::int64_t s : {1, 4, 20}) {
      StochasticQuantizer qsgd(qsgd_options(s, 0, false, false));
      const double bound =
          std::min(double(d) / double(s * s), std::sqrt(double(d)) / double(s)) * v.squaredNorm();
      const double mse = monte_carlo(qsgd, v, 3000, 32).mean_squared_error;
      INFO("qsgd d = " << d << " s = " << s << " mse " << mse << " bound " << bound);
      CHECK(mse <= bound);
    }
    for (const int b : {2, 4, 8}) {
      StochasticQuantizer lpc(lpc_options(b, ClipRule::max, 1, 0));
      const double s = double((1 << (b - 1)) - 1);
      const double theta = v.cwiseAbs().maxCoeff();
      const double bound = double(d) * theta * theta / (4 * s * s);
      const double mse = monte_carlo(lpc, v, 3000, 33).mean_squared_error;
      INFO("lpc d = " << d << " b = " << b << " mse " << mse << " bound " << bound);
      CHECK(mse <= bound);
    }
  }
}

TEST_CASE(
    "qsgd: Elias coding decodes to the fixed coding's vector; s = sqrt(d) costs <= 2.8d + 32") {
  for (const Eigen::Index d : {1, 7, 1000, 100000}) {
    const auto s = std::int64_t(std::ceil(std::sqrt(double(d))));
    StochasticQuantizer fixed(qsgd_options(s, 0, false, false));
    StochasticQuantizer elias(qsgd_options(s, 0, true, false));
    CHECK_FALSE(elias.fixed_size());
    for (const auto& [name, v] : awkward_vectors(d, 41)) {
      INFO(name << ", d = " << d);
      std::mt19937_64 a(d), b(d);
      std::uint64_t elias_bits = 0;
      const Eigen::VectorXd from_elias = round_trip(elias, v, b, &elias_bits);
      CHECK(bitwise_equal(from_elias, round_trip(fixed, v, a)));
      // exact size: θ + Σ over nonzeros ω(gap) + 1 + ω(level)
      std::uint64_t expected = 32;
      Eigen::Index previous = -1;
      const double theta = double(smallest_float_at_least(v.norm()));
      for (Eigen::Index k = 0; k < d; ++k) {
        if (from_elias(k) == 0) continue;
        const auto level =
            std::uint64_t(std::llround(std::fabs(from_elias(k)) * double(s) / theta));
        expected += std::uint64_t(elias_omega_bits(std::uint64_t(k - previous))) + 1 +
                    std::uint64_t(elias_omega_bits(level));
        previous = k;
      }
      CHECK(elias_bits == expected);
      if (name == std::string("gaussian") && d >= 1000) CHECK(elias_bits <= 2.8 * double(d) + 32);
    }
    CHECK(elias.bits_for(d) == fixed.bits_for(d));  // profile models: the fixed-code size
  }
}

TEST_CASE("qsgd: bucket and biased scaling") {
  const Eigen::Index d = 1000, n = 64;
  const Eigen::VectorXd v = gaussian(d, 51);
  StochasticQuantizer plain(qsgd_options(4, n, false, false));
  StochasticQuantizer biased(qsgd_options(4, n, false, true));
  CHECK(plain.bits_for(d) == 32 * 16 + std::uint64_t(d) * (1 + 3));
  CHECK_FALSE(biased.unbiased());
  std::mt19937_64 a(1), b(1);
  const Eigen::VectorXd x = round_trip(plain, v, a), y = round_trip(biased, v, b);
  for (Eigen::Index k = 0; k < d; ++k) {
    const double length = double(std::min(n, d - (k / n) * n));
    const double beta = 1 / (1 + std::min(length / 16, std::sqrt(length) / 4));
    REQUIRE(y(k) == x(k) * beta);
  }
}

TEST_CASE("lpc: adaptive clipping follows an EMA of the max norm across messages") {
  QuantizerOptions o = lpc_options(8, ClipRule::adaptive, 2.0, 0);
  o.decay = 0.5;
  StochasticQuantizer q(o);
  std::mt19937_64 rng(61);
  Eigen::VectorXd v = Eigen::VectorXd::Constant(4, 1.0);
  auto range_of = [&](const Eigen::VectorXd& x) {
    const Encoded m = q.encode(x, rng);
    BitReader in(m.bytes, m.bits);
    return double(std::bit_cast<float>(std::uint32_t(in.get(32))));
  };
  CHECK(range_of(v) == 2.0);        // m = 1
  CHECK(range_of(3.0 * v) == 4.0);  // m = 0.5·1 + 0.5·3 = 2
  CHECK(range_of(0.0 * v) == 2.0);  // m = 1
}

TEST_CASE("quantizers: empty vectors are empty messages; malformed messages are refused") {
  StochasticQuantizer q(lpc_options(4, ClipRule::max, 1, 0));
  std::mt19937_64 rng(71);
  const Encoded empty = q.encode(Eigen::VectorXd(0), rng);
  CHECK(empty.bits == 0);
  CHECK(q.bits_for(0) == 0);
  Encoded m = q.encode(gaussian(10, 1), rng);
  m.bits -= 1;
  Eigen::VectorXd out;
  CHECK_THROWS_AS(q.decode(m, out), std::invalid_argument);
}
