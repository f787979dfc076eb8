// top-k and random-k against independent references: top-k equals a full stable sort by
// (|v| descending, index ascending) — the documented tie rule — on both selection paths
// (nth_element for d ≤ 65536, radix histogram above); random-k picks k distinct indices,
// each with probability k/d, and its d/k scaling is unbiased. Sizes equal the formulas.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <set>

#include "compress_helpers.hpp"
#include "models/compress/bit_stream.hpp"
#include "models/compress/sparsifiers.hpp"
#include "models/cpu/instruction_set.hpp"

using namespace dlsim::models;
using dlsim::test::awkward_vectors;
using dlsim::test::bitwise_equal;
using dlsim::test::gaussian;

namespace {

// The k largest |v_i|, ties to the lower index, by a full sort.
Eigen::VectorXd reference_top_k(const Eigen::VectorXd& v, std::int64_t k) {
  std::vector<Eigen::Index> order(std::size_t(v.size()));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
    return std::fabs(v(a)) > std::fabs(v(b));
  });
  Eigen::VectorXd out = Eigen::VectorXd::Zero(v.size());
  for (std::int64_t j = 0; j < k; ++j)
    out(order[std::size_t(j)]) = double(float(v(order[std::size_t(j)])));
  return out;
}

Eigen::VectorXd round_trip(Compressor& c, const Eigen::VectorXd& v, std::mt19937_64& rng,
                           std::uint64_t* bits = nullptr) {
  const Encoded m = c.encode(v, rng);
  REQUIRE(m.bytes.size() == (m.bits + 7) / 8);
  if (bits) *bits = m.bits;
  Eigen::VectorXd out;
  c.decode(m, out);
  return out;
}

}  // namespace

TEST_CASE("top-k: k = max(1, round(d(1 - ratio))), or k itself") {
  CHECK(kept_coordinates({0.9, 0}, 1000) == 100);  // d(1 − 0.9) = 99.999… rounds to 100
  CHECK(kept_coordinates({0.99, 0}, 7) == 1);
  CHECK(kept_coordinates({0.0, 0}, 7) == 7);
  CHECK(kept_coordinates({0.5, 0}, 1) == 1);
  CHECK(kept_coordinates({0.5, 3}, 7) == 3);
  CHECK(kept_coordinates({0.5, 0}, 0) == 0);
  CHECK_THROWS_AS(kept_coordinates({0.5, 8}, 7), std::invalid_argument);
}

TEST_CASE(
    "top-k keeps the k largest magnitudes, ties to the lower index, k(32 + ceil(log2 d)) bits") {
  std::mt19937_64 rng(1);
  for (const Eigen::Index d : {1, 7, 1000, 70000, 1000000}) {
    for (const double ratio : {0.0, 0.5, 0.99}) {
      TopKCompressor c({ratio, 0});
      const std::int64_t k = kept_coordinates({ratio, 0}, d);
      for (const auto& [name, v] : awkward_vectors(d, 2)) {
        INFO(name << ", d = " << d << ", ratio = " << ratio);
        std::uint64_t bits = 0;
        const Eigen::VectorXd out = round_trip(c, v, rng, &bits);
        CHECK(bits ==
              std::uint64_t(k) * (32 + std::uint64_t(std::ceil(std::log2(double(d)) - 1e-12))));
        CHECK(c.bits_for(d) == bits);
        CHECK(bitwise_equal(out, reference_top_k(v, k)));
      }
    }
  }
  CHECK_FALSE(TopKCompressor({0.5, 0}).unbiased());
}

TEST_CASE("top-k: the radix selection agrees with nth_element on heavy ties across bins") {
  std::mt19937_64 rng(3);
  for (const std::int64_t k : {1, 2, 1000, 99999, 100000, 200000}) {
    Eigen::VectorXd v(200000);
    for (auto& x : v) x = double(int(rng() % 7) - 3) * std::ldexp(1.0, int(rng() % 3) - 1);
    std::vector<std::uint64_t> scratch;
    std::vector<std::uint32_t> histogram;
    const auto [radix, greater, equal] = kth_largest_key(v, k, scratch, histogram);
    std::vector<double> magnitudes(v.size());
    for (Eigen::Index i = 0; i < v.size(); ++i) magnitudes[std::size_t(i)] = std::fabs(v(i));
    std::sort(magnitudes.begin(), magnitudes.end(), std::greater<>());
    CHECK(radix == magnitude_key(magnitudes[std::size_t(k - 1)]));
    CHECK(greater == std::count_if(magnitudes.begin(), magnitudes.end(),
                                   [&](double m) { return m > magnitudes[std::size_t(k - 1)]; }));
    TopKCompressor c({0, k});
    std::mt19937_64 unused(0);
    CHECK(bitwise_equal(round_trip(c, v, unused), reference_top_k(v, k)));
  }
}

TEST_CASE("top-k: the small-d radix selection agrees with a full sort, every k") {
  // Inputs that stress each pass: heavy ties within and across 12-bit bins, zeros,
  // subnormals, infinities, values equal in all but the last mantissa bit.
  std::mt19937_64 rng(5);
  std::normal_distribution<double> normal(0.0, 1.0);
  const auto draw = [&](int kind) {
    switch (kind) {
      case 0:
        return normal(rng);
      case 1:
        return double(int(rng() % 7) - 3) * std::ldexp(1.0, int(rng() % 3) - 1);
      case 2:
        return rng() % 2 ? 0.0 : normal(rng) * 1e-3;
      case 3:
        return std::ldexp(double(rng() % 5), -1074);  // subnormal multiples
      case 4:
        return std::nextafter(1.5, 2.0 * double(rng() % 3));  // 1.5 and its neighbours
      default:
        return rng() % 9 == 0 ? -std::numeric_limits<double>::infinity() : normal(rng);
    }
  };
  std::vector<std::uint64_t> scratch;
  std::vector<std::uint32_t> histogram;
  // 70,000 takes the large-d path, with the scratch and histogram the small sizes before
  // and after it use too.
  for (const Eigen::Index d : {1, 2, 3, 17, 70000, 784, 4096, 65536}) {
    for (int kind = 0; kind < 6; ++kind) {
      Eigen::VectorXd v(d);
      for (auto& x : v) x = draw(kind);
      std::vector<std::uint64_t> sorted(static_cast<std::size_t>(d));
      for (Eigen::Index i = 0; i < d; ++i) sorted[std::size_t(i)] = magnitude_key(v(i));
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      const std::int64_t step = d <= 64 ? 1 : d / 61;  // about 60 ranks, and the ends
      for (std::int64_t k = 1; k <= d; k = k + step > d && k < d ? d : k + step) {
        INFO("d = " << d << ", input kind " << kind << ", k = " << k);
        const auto [key, greater, equal] = kth_largest_key(v, k, scratch, histogram);
        const std::uint64_t expected = sorted[std::size_t(k - 1)];
        CHECK(key == expected);
        CHECK(greater == std::count_if(sorted.begin(), sorted.end(),
                                       [&](std::uint64_t m) { return m > expected; }));
        const auto ties = std::count(sorted.begin(), sorted.end(), expected);
        CHECK(equal == (d <= 65536 ? ties : 0));  // known on the small-d path only
      }
    }
  }
}

namespace {
enum class Input { spread, zeros, ties, narrow, far };

// The small-d select's answer for rank k against the keys sorted in descending order: the
// key, how many are larger, how many equal it; and its histograms left all zero.
void check_against_sort(const std::vector<std::uint64_t>& sorted, std::int64_t k, const KthKey& got,
                        const std::vector<std::uint32_t>& histogram) {
  const std::uint64_t expected = sorted[std::size_t(k - 1)];
  CHECK(got.key == expected);
  CHECK(got.greater ==
        std::count_if(sorted.begin(), sorted.end(), [&](std::uint64_t m) { return m > expected; }));
  CHECK(got.equal == std::count(sorted.begin(), sorted.end(), expected));
  CHECK(std::all_of(histogram.begin(), histogram.end(), [](std::uint32_t c) { return c == 0; }));
}
}  // namespace

TEST_CASE("top-k: the small-d selection on every instruction set agrees with a sort") {
  // Every version of the vector steps (baseline, AVX2, AVX-512: those this processor has) (keys
  // with the largest and smallest non-zero, the boundary bin's keys kept in place, their ranking),
  // at lengths around the eight-key step, on inputs that take every path: keys close together,
  // zeros among them (the histograms are then cleared key by key), ties and one narrow bin (more
  // than 64 keys in the boundary bin: narrowed 8 bits at a time first), and keys beyond the window
  // (half of them 2^-600 times smaller: ranks among those come from bin 0). The histograms must be
  // left all zero for the next call.
  namespace detail = dlsim::models::top_k_detail;
  const auto versions = dlsim::models::available_instruction_sets();
  if (!dlsim::models::avx512_available())
    WARN("this processor has no AVX-512 (F and BW): its selection did not run");
  std::mt19937_64 rng(8);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const auto set : versions) {
    std::vector<std::uint64_t> scratch;
    std::vector<std::uint32_t> histogram;
    for (const Eigen::Index d : {1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 784, 785}) {
      for (const Input input :
           {Input::spread, Input::zeros, Input::ties, Input::narrow, Input::far}) {
        Eigen::VectorXd v(d);
        for (auto& x : v) {
          const double spread = normal(rng) * std::ldexp(1.0, int(rng() % 9));
          switch (input) {
            case Input::spread:
              x = spread;
              break;
            case Input::zeros:
              x = rng() % 3 == 0 ? 0.0 : spread;
              break;
            case Input::ties:
              x = rng() % 2 ? 0.25 : -0.5;
              break;
            case Input::narrow:
              x = 1.0 + 0.1 * std::abs(normal(rng)) / 8;
              break;
            case Input::far: {  // the window's lowest bin and below it
              const double bottom = std::ldexp(1.125 + 0.06 * double(rng() % 1000) / 1000, -44);
              x = rng() % 3 == 0 ? spread : rng() % 2 ? bottom : std::ldexp(spread, -600);
              break;
            }
          }
        }
        // The largest is 2^20: the window's lowest bin holds 2^-44 · [1.125, 1.1875).
        if (input == Input::far) v(0) = std::ldexp(1.0, 20);
        std::vector<std::uint64_t> sorted(static_cast<std::size_t>(d));
        for (Eigen::Index i = 0; i < d; ++i) sorted[std::size_t(i)] = magnitude_key(v(i));
        std::sort(sorted.begin(), sorted.end(), std::greater<>());
        for (const std::int64_t k : {std::int64_t(1), std::int64_t((d + 1) / 2), std::int64_t(d)}) {
          INFO(dlsim::models::instruction_set_name(set)
               << ", d = " << d << ", input " << int(input) << ", k = " << k);
          check_against_sort(sorted, k,
                             detail::kth_largest_key_small(v.data(), d, k, scratch, histogram, set),
                             histogram);
        }
      }
    }
  }
}

TEST_CASE("top-k: the small-d select's prefilter, taken and refused, on every path") {
  // Step 1½ keeps only the keys >= half the largest when at least k are: `many` keys in
  // [0.95, 1], the rest in [0, 0.45], so exactly the large ones are >= half the largest.
  // k = their count takes it with every kept key needed,
  // one more is refused (the keys are computed again), k > d/8 does not try. The
  // result must be the sort's, and the histograms all zero afterwards.
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> high(0.95, 1.0), low(0.0, 0.45);
  constexpr Eigen::Index d = 801;
  for (const auto set : available_instruction_sets()) {
    std::vector<std::uint64_t> scratch;
    std::vector<std::uint32_t> histogram;
    for (const std::int64_t many : {1, 7, 64, 99}) {
      Eigen::VectorXd v(d);
      for (Eigen::Index i = 0; i < d; ++i) v(i) = (rng() % 2 ? 1 : -1) * low(rng);
      for (std::int64_t j = 0; j < many; ++j) v(Eigen::Index(rng() % d)) = high(rng);
      std::vector<std::uint64_t> sorted(static_cast<std::size_t>(d));
      for (Eigen::Index i = 0; i < d; ++i) sorted[std::size_t(i)] = magnitude_key(v(i));
      std::sort(sorted.begin(), sorted.end(), std::greater<>());
      const auto large = std::count_if(v.begin(), v.end(), [](double x) { return x > 0.5; });
      for (const std::int64_t k : {std::int64_t(large), std::int64_t(large) + 1, d / 8 + 1}) {
        INFO(instruction_set_name(set) << ", keys >= half the largest " << large << ", k = " << k);
        check_against_sort(
            sorted, k, top_k_detail::kth_largest_key_small(v.data(), d, k, scratch, histogram, set),
            histogram);
      }
    }
  }
}

TEST_CASE("top-k: kept positions on every instruction set agree with a scalar scan") {
  // NaNs (kept), infinities, zeros and values equal to the threshold, at lengths around
  // both versions' steps; the scan is the definition: !(|x_i| < t).
  namespace detail = dlsim::models::top_k_detail;
  const auto versions = dlsim::models::available_instruction_sets();
  std::mt19937_64 rng(9);
  const double specials[] = {0.0,
                             -0.0,
                             0.5,
                             -0.5,
                             std::numeric_limits<double>::infinity(),
                             -std::numeric_limits<double>::infinity(),
                             std::numeric_limits<double>::quiet_NaN()};
  for (const auto set : versions) {
    for (const Eigen::Index d : {0, 1, 3, 4, 5, 7, 8, 9, 16, 17, 784, 785}) {
      std::vector<double> x(static_cast<std::size_t>(d));
      for (auto& v : x) v = rng() % 2 ? specials[rng() % 7] : double(int(rng() % 5) - 2) * 0.25;
      for (const double t : {0.0, 0.25, 0.5, 1.0}) {
        INFO(dlsim::models::instruction_set_name(set) << ", d = " << d << ", t = " << t);
        std::vector<std::uint64_t> at(static_cast<std::size_t>(d) + 8), expected;
        for (Eigen::Index i = 0; i < d; ++i)
          if (!(std::fabs(x[std::size_t(i)]) < t)) expected.push_back(std::uint64_t(i));
        const std::size_t n = detail::indices_at_least(x.data(), d, t, at.data(), set);
        CHECK(std::vector<std::uint64_t>(at.begin(), at.begin() + std::ptrdiff_t(n)) == expected);
      }
    }
  }
}

// encode_into picks the kept positions two ways: |x_i| >= t when every key equal to the
// threshold is kept (the usual case), else key by key with the ties counted. Both against
// a stable sort by key (ties: lower index first; NaNs have the largest keys), on inputs
// with ties, zeros, infinities and NaNs, every k of small d and some of larger.
TEST_CASE("top-k: the kept positions agree with a stable sort by key, NaNs included") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  for (const Eigen::Index d : {1, 2, 3, 4, 5, 7, 17, 784}) {
    for (int kind = 0; kind < 4; ++kind) {
      Eigen::VectorXd v(d);
      for (auto& x : v) {
        const std::uint64_t r = rng() % 10;
        x = kind == 0   ? normal(rng)
            : kind == 1 ? double(int(rng() % 5) - 2)  // ties and zeros
            : kind == 2 ? (r == 0   ? nan
                           : r == 1 ? -inf
                                    : normal(rng))
                        : (r < 3 ? -nan : double(int(r) - 6));
      }
      std::vector<Eigen::Index> order(std::size_t(v.size()));
      std::iota(order.begin(), order.end(), 0);
      std::stable_sort(order.begin(), order.end(), [&](Eigen::Index a, Eigen::Index b) {
        return magnitude_key(v(a)) > magnitude_key(v(b));
      });
      const std::int64_t step = d <= 17 ? 1 : 37;
      for (std::int64_t k = 1; k <= d; k += step) {
        INFO("d = " << d << ", input kind " << kind << ", k = " << k);
        std::vector<Eigen::Index> expected(order.begin(), order.begin() + k);
        std::sort(expected.begin(), expected.end());
        TopKCompressor c({0, k});
        std::mt19937_64 unused(0);
        const Encoded m = c.encode(v, unused);
        std::vector<Eigen::Index> kept;  // the message's indices, its first k fields
        BitReader indices(m.bytes, m.bits);
        for (std::int64_t j = 0; j < k; ++j)
          kept.push_back(Eigen::Index(indices.get(ceil_log2(std::uint64_t(d)))));
        CHECK(kept == expected);
      }
    }
  }
}

TEST_CASE("top-k: the wire holds the ascending indices then the fp32 values") {
  Eigen::VectorXd v(5);
  v << 0.5, -3.0, 2.0, -2.0, 0.1;  // |−2| ties |2|: index 2 wins
  TopKCompressor c({0, 2});
  std::mt19937_64 rng(4);
  const Encoded m = c.encode(v, rng);
  REQUIRE(m.bits == 2 * (32 + 3));
  BitReader in(m.bytes, m.bits);
  CHECK(in.get(3) == 1);
  CHECK(in.get(3) == 2);
  CHECK(std::bit_cast<float>(std::uint32_t(in.get(32))) == -3.0f);
  CHECK(std::bit_cast<float>(std::uint32_t(in.get(32))) == 2.0f);
}

TEST_CASE("random-k: k distinct indices from the seed, 64 + 32k bits, the same on both sides") {
  std::mt19937_64 rng(5);
  for (const Eigen::Index d : {1, 7, 1000, 1000000}) {
    for (const double ratio : {0.0, 0.9, 0.999}) {
      RandomKCompressor c({ratio, 0}, false);
      const std::int64_t k = kept_coordinates({ratio, 0}, d);
      for (const auto& [name, v] : awkward_vectors(d, 6)) {
        INFO(name << ", d = " << d << ", ratio = " << ratio);
        const Encoded m = c.encode(v, rng);
        CHECK(m.bits == 64 + 32 * std::uint64_t(k));
        CHECK(c.bits_for(d) == m.bits);
        BitReader in(m.bytes, m.bits);
        const auto indices = random_k_indices(in.get(64), d, k);
        REQUIRE(std::int64_t(indices.size()) == k);
        CHECK(std::set<std::int64_t>(indices.begin(), indices.end()).size() == std::size_t(k));
        CHECK(std::is_sorted(indices.begin(), indices.end()));
        CHECK((indices.front() >= 0 && indices.back() < d));
        Eigen::VectorXd expected = Eigen::VectorXd::Zero(d), out;
        for (const auto i : indices) expected(i) = double(float(v(i)));
        c.decode(m, out);
        CHECK(bitwise_equal(out, expected));
      }
    }
  }
}

TEST_CASE("random-k: every index is kept with probability k/d; unbiased scaling by d/k") {
  const Eigen::Index d = 20;
  const std::int64_t k = 5;
  std::vector<int> hits(d, 0);
  const int trials = 40000;
  for (int t = 0; t < trials; ++t)
    for (const auto i : random_k_indices(std::uint64_t(t) * 7919 + 1, d, k)) ++hits[std::size_t(i)];
  const double p = double(k) / double(d);
  for (const int h : hits)
    CHECK(std::fabs(h / double(trials) - p) <= 5 * std::sqrt(p * (1 - p) / trials));

  const Eigen::VectorXd v = gaussian(d, 7);
  RandomKCompressor c({0, k}, true);
  CHECK(c.unbiased());
  std::mt19937_64 rng(8);
  Eigen::VectorXd sum = Eigen::VectorXd::Zero(d), out;
  for (int t = 0; t < trials; ++t) {
    c.decode(c.encode(v, rng), out);
    sum += out;
  }
  // Var of one coordinate: v_i²(d/k − 1); 5σ/√T
  const double bound =
      5 * v.cwiseAbs().maxCoeff() * std::sqrt(double(d) / k - 1) / std::sqrt(double(trials));
  CHECK((sum / trials - v).cwiseAbs().maxCoeff() <= bound);
  RandomKCompressor biased({0, k}, false);
  CHECK_FALSE(biased.unbiased());
}

TEST_CASE("top-k: decoding reads every field where it is, early and late in a message") {
  // Messages written field by field with BitWriter (k indices of 3 bits, then k floats):
  // the first fields are read from whole 8-byte words, the last few through BitReader.
  // Each position in turn holds an index past d, which must be refused wherever it is.
  constexpr Eigen::Index d = 6;
  const std::vector<std::uint64_t> indices{5, 0, 3, 1, 4, 2};
  const std::vector<float> values{1.5f, -2.25f, 3e-8f, -7e5f, 0.125f, 42.0f};
  const auto message = [&](std::size_t bad) {
    BitWriter out;
    out.reset();
    for (std::size_t j = 0; j < indices.size(); ++j) out.put(j == bad ? 7 : indices[j], 3);
    for (const float v : values) out.put(std::bit_cast<std::uint32_t>(v), 32);
    Encoded m;
    m.dimension = d;
    m.bits = out.bits();
    out.finish_into(m.bytes);
    return m;
  };
  TopKCompressor c({0, std::int64_t(indices.size())});
  Eigen::VectorXd decoded;
  c.decode(message(indices.size()), decoded);
  Eigen::VectorXd expected(d);
  for (std::size_t j = 0; j < indices.size(); ++j) expected(Eigen::Index(indices[j])) = values[j];
  CHECK(bitwise_equal(decoded, expected));
  for (std::size_t bad = 0; bad < indices.size(); ++bad) {
    INFO("index past d at field " << bad);
    CHECK_THROWS_WITH(c.decode(message(bad), decoded), Catch::Contains("index out of range"));
    Eigen::VectorXd target = Eigen::VectorXd::Zero(d);
    CHECK_THROWS_WITH(c.add_decoded(message(bad), 1.0, target),
                      Catch::Contains("index out of range"));
  }
}

TEST_CASE("top-k: its own last message added from what it kept equals add_decoded") {
  std::mt19937_64 rng(12);
  std::normal_distribution<double> normal(0.0, 1.0);
  TopKCompressor c({0, 3});
  Eigen::VectorXd none = Eigen::VectorXd::Zero(6);
  CHECK_FALSE(c.add_last_encoded(1.0, none));  // nothing encoded yet
  CHECK(none == Eigen::VectorXd::Zero(6));
  for (const Eigen::Index d : {3, 6, 785}) {
    for (const bool ties : {false, true}) {
      const SparsityOptions options{0, std::max<std::int64_t>(1, d / 10)};
      TopKCompressor own(options);
      const TopKCompressor reader(options);  // another instance reads the bytes
      Eigen::VectorXd v(d), target(d);
      for (auto& x : v) x = ties ? double(rng() % 3) - 1.0 : normal(rng);  // ties: -1, 0, 1
      for (auto& x : target) x = rng() % 3 == 0 ? 0.0 : normal(rng);
      Encoded m;
      own.encode_into(v, rng, m);
      for (const double weight : {1.0, -0.3}) {
        Eigen::VectorXd kept = target, decoded = target;
        REQUIRE(own.add_last_encoded(weight, kept));
        reader.add_decoded(m, weight, decoded);
        CHECK(bitwise_equal(kept, decoded));
      }
      Eigen::VectorXd wrong(d + 1);
      CHECK_THROWS_AS(own.add_last_encoded(1.0, wrong), std::invalid_argument);
    }
  }
  // An empty message keeps nothing to add from.
  TopKCompressor empty({0.5, 0});
  Encoded m;
  empty.encode_into(Eigen::VectorXd(), rng, m);
  Eigen::VectorXd zero;
  CHECK_FALSE(empty.add_last_encoded(1.0, zero));
  RandomKCompressor random_k({0.5, 0}, false);
  random_k.encode_into(Eigen::VectorXd::Ones(4), rng, m);
  Eigen::VectorXd four = Eigen::VectorXd::Zero(4);
  CHECK_FALSE(random_k.add_last_encoded(1.0, four));
}

TEST_CASE("top-k: add_decoded equals adding the decoded vector, bit for bit") {
  std::mt19937_64 rng(11);
  std::normal_distribution<double> normal(0.0, 1.0);
  for (const Eigen::Index d : {1, 5, 785}) {
    for (const std::int64_t k : {std::int64_t(1), std::int64_t(d)}) {
      TopKCompressor c({0, k});
      REQUIRE(c.adds_decoded());
      Eigen::VectorXd v(d), target(d);
      for (auto& x : v) x = normal(rng);
      for (auto& x : target) x = rng() % 3 == 0 ? 0.0 : normal(rng);  // +0 included
      const Encoded m = c.encode(v, rng);
      for (const double weight : {1.0, 0.37, 1e-300}) {
        Eigen::VectorXd q, dense = target, sparse = target;
        c.decode(m, q);
        dense += weight * q;
        c.add_decoded(m, weight, sparse);
        CHECK(bitwise_equal(sparse, dense));
      }
      Eigen::VectorXd wrong(d + 1);
      CHECK_THROWS_AS(c.add_decoded(m, 1.0, wrong), std::invalid_argument);
      Encoded cut = m;
      cut.bits -= 1;
      CHECK_THROWS_AS(c.add_decoded(cut, 1.0, target), std::invalid_argument);
    }
  }
  // Random-k keeps the dense decode.
  RandomKCompressor random_k({0.5, 0}, false);
  CHECK_FALSE(random_k.adds_decoded());
  Eigen::VectorXd target = Eigen::VectorXd::Zero(4);
  std::mt19937_64 unused(0);
  CHECK_THROWS_AS(random_k.add_decoded(random_k.encode(target, unused), 1.0, target),
                  std::logic_error);
}
