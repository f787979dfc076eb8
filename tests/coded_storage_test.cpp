// Byte-coded float64 storage (FeatureMatrix::of_codes, models/data/coded_rows.hpp): one
// byte per value and a table of 256 doubles, read with float64 storage's results bit for
// bit. Checked against independent truth: Eigen's own matrix-vector product on the widened
// values (on inputs where another summation order gives other bits, so the check can
// fail), and every objective's gradients and evaluation sums on plain float64 storage of
// the same values, over row ranges that start at odd rows of odd-width rows (where the
// alignment of the rows enters Eigen's order).
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <stdexcept>
#include <vector>

#include "models/cpu/instruction_set.hpp"
#include "models/data/byte_buffer.hpp"
#include "models/data/coded_rows.hpp"
#include "models/data/sources.hpp"
#include "models/objectives/cnn/architectures.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "models/objectives/least_squares.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"

using dlsim::models::ByteBuffer;
using dlsim::models::CodeTable;
using dlsim::models::Dataset;
using dlsim::models::FeatureMatrix;
using dlsim::models::Index;
using dlsim::models::Matrix;
using dlsim::models::Vector;

namespace {

bool same_bits(const Vector& a, const Vector& b) {
  return a.size() == b.size() &&
         std::memcmp(a.data(), b.data(), sizeof(double) * std::size_t(a.size())) == 0;
}

// A table of 256 values spread over many magnitudes (so that the order of a sum shows in
// its last bits), with +0 and -0 among them.
std::array<double, 256> spread_table(std::mt19937_64& rng) {
  std::array<double, 256> t{};
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = std::ldexp(u(rng), int(rng() % 40) - 20);
  t[0] = 0.0;
  t[1] = -0.0;
  return t;
}

// Pixel values c / d, rounded: the tables whose values the AVX-512 kernels compute.
std::array<double, 256> pixel_table(double d) {
  std::array<double, 256> t{};
  for (std::size_t c = 0; c < t.size(); ++c) t[c] = double(c) / d;
  return t;
}

// A vector of magnitudes spread over 2^-20 .. 2^20 (the order of a sum shows).
Vector spread_vector(Index n, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Vector v(n);
  for (Index i = 0; i < n; ++i) v(i) = std::ldexp(u(rng), int(rng() % 40) - 20);
  return v;
}

std::vector<std::uint8_t> random_codes(std::size_t n, std::mt19937_64& rng) {
  std::vector<std::uint8_t> codes(n);
  for (auto& c : codes) c = std::uint8_t(rng() % 256);
  return codes;
}

// The same data twice: byte-coded, and plain float64 storage of its values.
struct Twin {
  Dataset coded, plain;
};

enum class Table { spread, pixels };

Twin twin(Index rows, Index cols, int classes, std::mt19937_64& rng, Table kind = Table::spread) {
  const auto table = kind == Table::spread ? spread_table(rng) : pixel_table(255);
  auto codes = random_codes(std::size_t(rows * cols), rng);
  Matrix values(rows, cols);
  for (Index i = 0; i < rows * cols; ++i) values.data()[i] = table[codes[std::size_t(i)]];
  Twin t;
  t.plain.features = values;
  t.coded.features =
      FeatureMatrix::of_codes(ByteBuffer(codes.begin(), codes.end()), rows, cols, table);
  t.plain.labels.resize(rows);
  for (Index i = 0; i < rows; ++i) t.plain.labels(i) = double(rng() % unsigned(classes));
  t.coded.labels = t.plain.labels;
  t.plain.classes = t.coded.classes = classes;
  return t;
}

}  // namespace

TEST_CASE("coded storage: rows times a vector sum as Eigen's product, bit for bit") {
  std::mt19937_64 rng(21);
  int order_shows = 0;  // rows where a plain left-to-right sum gives other bits
  for (const Index cols : {1, 2, 3, 5, 64, 784, 785}) {
    for (const Index rows : {2, 3, 7, 8, 9, 17, 100}) {
      INFO("rows " << rows << ", cols " << cols);
      const auto table = spread_table(rng);
      const auto codes = random_codes(std::size_t(rows * cols), rng);
      Matrix x(rows, cols);
      for (Index i = 0; i < rows * cols; ++i) x.data()[i] = table[codes[std::size_t(i)]];
      const Vector w = dlsim::test::random_vector(cols, int(rng() % 1000), 3.0);
      Vector eigen;
      eigen.noalias() = x * w;
      Vector z(rows);
      dlsim::models::coded_rows_times(codes.data(), rows, cols, CodeTable(table), w.data(),
                                      z.data());
      CHECK(same_bits(z, eigen));
      Vector portable(rows);
      dlsim::models::coded_rows_detail::rows_times_portable(
          codes.data(), rows, cols, CodeTable(table), w.data(), portable.data());
      CHECK(same_bits(portable, eigen));
      for (Index i = 0; i < rows; ++i) {
        double left_to_right = 0;
        for (Index j = 0; j < cols; ++j) left_to_right += x(i, j) * w(j);
        order_shows += left_to_right != eigen(i) ? 1 : 0;
      }
    }
  }
  CHECK(order_shows > 100);  // the inputs tell summation orders apart
}

TEST_CASE("coded storage: a code table has a formula exactly when it reproduces every value") {
  // c / d rounded to the nearest double, computed here by division (the independent
  // truth), for several d: the formula is found, and its constants are 1/d's.
  for (const double d : {255.0, 7.0, 256.0, 1000.0, 65535.0}) {
    INFO("d " << d);
    const CodeTable table(pixel_table(d));
    CHECK(table.has_formula());
    CHECK(table.hi == 1 / d);
    for (int c = 0; c < 256; ++c)
      CHECK(std::fma(double(c), table.hi, double(c) * table.lo) == double(c) / d);
  }
  std::mt19937_64 rng(25);
  CHECK_FALSE(CodeTable(spread_table(rng)).has_formula());
  auto nudged = pixel_table(255);  // one value one ulp away
  nudged[37] = std::nextafter(nudged[37], 1.0);
  CHECK_FALSE(CodeTable(nudged).has_formula());
  auto negative_zero = pixel_table(255);
  negative_zero[0] = -0.0;  // the formula gives +0
  CHECK_FALSE(CodeTable(negative_zero).has_formula());
  auto zeros = std::array<double, 256>{};
  CHECK_FALSE(CodeTable(zeros).has_formula());
}

TEST_CASE("coded storage: the AVX-512 and AVX2 kernels give the portable kernels' bits") {
  namespace detail = dlsim::models::coded_rows_detail;
  using dlsim::models::InstructionSet;
  const auto sets = dlsim::models::available_instruction_sets();
  if (!dlsim::models::avx512_available())
    WARN("this processor has no AVX-512 (F and BW): its kernels did not run");
  std::mt19937_64 rng(26);
  for (const InstructionSet set : sets) {
    if (set == InstructionSet::baseline) continue;  // the reference below
    const bool wide = set == InstructionSet::avx512;
    const auto widen = wide ? detail::widen_codes_avx512 : detail::widen_codes_avx2;
    const auto rows_times = wide ? detail::rows_times_avx512 : detail::rows_times_avx2;
    for (const double d : {255.0, 7.0}) {
      const auto values = pixel_table(d);
      const CodeTable table(values);
      REQUIRE(table.has_formula());
      // Widening: every length around the four- and eight-value steps, from unaligned starts.
      for (const Index n : {0, 1, 3, 4, 5, 7, 8, 9, 15, 784, 1001}) {
        const auto codes = random_codes(std::size_t(n) + 3, rng);
        for (const Index start : {0, 1, 3}) {
          std::vector<double> computed(static_cast<std::size_t>(n)), looked_up(computed.size());
          widen(codes.data() + start, table, computed.data(), n);
          for (Index i = 0; i < n; ++i)
            looked_up[std::size_t(i)] = values[codes[std::size_t(start + i)]];
          CHECK(std::equal(
              computed.begin(), computed.end(), looked_up.begin(), [](double a, double b) {
                return std::bit_cast<std::uint64_t>(a) == std::bit_cast<std::uint64_t>(b);
              }));
        }
      }
      // Products against Eigen's on the widened values, across the 16-column step and the
      // eight-row block, with w spread over magnitudes so that the order shows.
      int order_shows = 0;
      for (const Index cols : {1, 2, 15, 16, 17, 31, 33, 784, 785}) {
        for (const Index rows : {2, 7, 8, 9, 16, 17, 100}) {
          INFO(dlsim::models::instruction_set_name(set)
               << ", d " << d << ", rows " << rows << ", cols " << cols);
          const auto codes = random_codes(std::size_t(rows * cols), rng);
          Matrix x(rows, cols);
          for (Index i = 0; i < rows * cols; ++i) x.data()[i] = values[codes[std::size_t(i)]];
          const Vector w = spread_vector(cols, rng);
          Vector eigen;
          eigen.noalias() = x * w;
          Vector z(rows);
          rows_times(codes.data(), rows, cols, table, w.data(), z.data());
          CHECK(same_bits(z, eigen));
          for (Index i = 0; i < rows; ++i) {  // Eigen's order with each product fused into its add
            double lane0 = 0, lane1 = 0;
            Index j = 0;
            for (; j + 2 <= cols; j += 2) {
              lane0 = std::fma(x(i, j), w(j), lane0);
              lane1 = std::fma(x(i, j + 1), w(j + 1), lane1);
            }
            double fused = lane0 + lane1;
            if (j < cols) fused = std::fma(x(i, j), w(j), fused);
            order_shows += 0.0 + fused != eigen(i) ? 1 : 0;
          }
        }
      }
      CHECK(order_shows > 100);  // the inputs tell fused products from separate ones
    }
  }
}

TEST_CASE("coded storage: the objectives' math equals plain float64 storage, bit for bit") {
  std::mt19937_64 rng(22);
  // Pixel tables take the AVX-512 or AVX2 kernels where the processor has them.
  for (const auto& [d, kind] : {std::pair{Index(21), Table::spread},
                                {Index(64), Table::spread},
                                {Index(21), Table::pixels},
                                {Index(785), Table::pixels}}) {
    INFO("features " << d << (kind == Table::pixels ? ", pixel table" : ", spread table"));
    const Twin multi = twin(150, d, 3, rng, kind);
    Twin binary = twin(150, d, 2, rng, kind);
    for (Dataset* set : {&binary.coded, &binary.plain})
      for (Index i = 0; i < set->size(); ++i) set->labels(i) = set->labels(i) > 0 ? 1 : -1;

    const auto compare = [&](const dlsim::models::Objective& f, const Twin& t) {
      const Vector w = dlsim::test::random_vector(f.dimension(), 4, 0.3);
      for (const std::vector<Index>& rows :
           {std::vector<Index>{5, 6, 7, 8}, std::vector<Index>{17}, std::vector<Index>{3},
            std::vector<Index>{99, 2, 33}, std::vector<Index>{0, 1}}) {
        Vector gc, gp;
        f.gradient(w, t.coded, rows, gc);
        f.gradient(w, t.plain, rows, gp);
        CHECK(same_bits(gc, gp));
      }
      CHECK(f.loss(w, t.coded) == f.loss(w, t.plain));
      CHECK(f.accuracy(w, t.coded) == f.accuracy(w, t.plain));
      for (const auto& [begin, end] :
           {std::pair<Index, Index>{3, 141}, {7, 8}, {8, 9}, {0, 150}, {149, 150}, {10, 12}}) {
        INFO("rows [" << begin << ", " << end << ")");
        const auto sc = f.data_sums(w, t.coded, begin, end);
        const auto sp = f.data_sums(w, t.plain, begin, end);
        REQUIRE(sc.has_value());
        REQUIRE(sp.has_value());
        CHECK(sc->loss == sp->loss);
        CHECK(sc->correct == sp->correct);
      }
    };
    compare(dlsim::models::Softmax(d, 3, {.l2 = 0.01}, true, {}), multi);
    compare(dlsim::models::Mlp(d, {8}, 3, dlsim::models::Activation::tanh, {}, true,
                               {.kind = dlsim::models::InitOptions::Kind::normal}),
            multi);
    compare(dlsim::models::Logistic(d, {.l2 = 0.01}, true, {}), binary);
    compare(dlsim::models::LeastSquares(d, {}, true, {}), multi);
  }
}

TEST_CASE("coded storage: reads, widening to plain storage, and what it refuses") {
  std::mt19937_64 rng(23);
  Twin t = twin(9, 5, 2, rng);
  const FeatureMatrix& coded = t.coded.features;
  CHECK(coded.is_coded());
  CHECK_FALSE(coded.is_float32());
  CHECK(coded.value_bytes() == 1);
  CHECK(coded.rows() == 9);
  CHECK(coded.cols() == 5);
  for (Index i = 0; i < 9; ++i)
    for (Index j = 0; j < 5; ++j) CHECK(coded(i, j) == t.plain.features(i, j));
  Matrix gathered;
  const std::vector<Index> rows{8, 0, 3};
  coded.gather(rows, gathered);
  CHECK(gathered == t.plain.features.view()(rows, Eigen::all));
  Index calls = 0;
  coded.for_row_blocks(3, 4, [&](Index offset, const auto& x) {
    ++calls;
    CHECK(offset == 0);
    CHECK(x == t.plain.features.view().middleRows(3, 4));
  });
  CHECK(calls == 1);
  CHECK_THROWS_AS(coded.view(), std::logic_error);
  CHECK_THROWS_AS(t.coded.features.owned(), std::logic_error);
  CHECK_THROWS_AS(FeatureMatrix::of_codes(ByteBuffer(3), 2, 2, {}), std::logic_error);
  CHECK_THROWS_AS(FeatureMatrix::of_codes(ByteBuffer(3), 1, 1, {}, 4), std::logic_error);

  t.coded.features.decode_codes();
  CHECK_FALSE(t.coded.features.is_coded());
  CHECK(t.coded.features.value_bytes() == 8);
  CHECK(t.coded.features.view() == t.plain.features.view());
}

// select_rows (the eval_samples subsample, models/data/preprocess.cpp) keeps the storage:
// the rows of codes with the same table, of floats, or of doubles, in the order given.
TEST_CASE("coded storage: selected rows keep their storage and values") {
  std::mt19937_64 rng(29);
  Twin t = twin(9, 5, 2, rng);
  const std::vector<Index> rows{8, 0, 3, 3};
  const Matrix expected = t.plain.features.view()(rows, Eigen::all);
  const FeatureMatrix coded = t.coded.features.select_rows(rows);
  REQUIRE(coded.is_coded());
  REQUIRE(coded.rows() == 4);
  REQUIRE(coded.cols() == 5);
  Matrix widened;
  coded.gather(std::vector<Index>{0, 1, 2, 3}, widened);
  CHECK(widened == expected);
  const FeatureMatrix plain = t.plain.features.select_rows(rows);
  CHECK_FALSE(plain.is_coded());
  CHECK_FALSE(plain.is_float32());
  CHECK(plain.view() == expected);
  FeatureMatrix floats = t.plain.features;
  floats.to_float32();
  const FeatureMatrix selected = floats.select_rows(rows);
  REQUIRE(selected.is_float32());
  CHECK(selected.view_float32() == expected.cast<float>());
  CHECK(t.coded.features.select_rows(std::vector<Index>{}).rows() == 0);
}

// A channel normalization with one map for every channel (models/data/preprocess.cpp)
// maps the table, not the codes: every value must be the double that (x - m) / s gives on
// float64 storage, through normalize_channels itself on both storages, for Fashion-MNIST's
// own statistics (neither a power of two); a copy sharing the codes keeps the old values.
TEST_CASE("coded storage: a channel normalization maps the table to the doubles' values") {
  std::mt19937_64 rng(31);
  const auto codes = random_codes(256 * 6, rng);
  ByteBuffer bytes(codes.begin(), codes.end());
  for (std::size_t c = 0; c < 256; ++c) bytes[c] = std::uint8_t(c);  // every code appears
  const auto table = pixel_table(255);
  dlsim::models::DataSplit coded, plain, alone;
  alone.train.features = FeatureMatrix::of_codes(bytes, 256, 6, table);
  coded.train.features = FeatureMatrix::of_codes(std::move(bytes), 256, 6, table);
  std::vector<Index> all(256);
  for (Index i = 0; i < 256; ++i) all[std::size_t(i)] = i;
  Matrix values;
  coded.train.features.gather(all, values);
  plain.train.features = values;
  const FeatureMatrix before = coded.train.features;  // shares the codes
  const std::vector<double> mean{0.2860, 0.2860}, sd{0.3530, 0.3530};
  dlsim::models::normalize_channels(coded, 2, mean, sd);
  dlsim::models::normalize_channels(plain, 2, mean, sd);
  REQUIRE(coded.train.features.is_coded());
  Matrix mapped;
  coded.train.features.gather(all, mapped);
  CHECK(mapped == plain.train.features.view());
  CHECK(mapped(0, 1) == (1.0 / 255 - 0.2860) / 0.3530);
  Matrix old;
  before.gather(all, old);
  CHECK(old == values);
  // Alone (no copy shares the codes): mapped in place, to the same values.
  dlsim::models::normalize_channels(alone, 2, mean, sd);
  REQUIRE(alone.train.features.is_coded());
  Matrix in_place;
  alone.train.features.gather(all, in_place);
  CHECK(in_place == plain.train.features.view());
  // Two channels with different maps: decoded first, then each its own.
  dlsim::models::DataSplit two;
  two.train.features =
      FeatureMatrix::of_codes(ByteBuffer(codes.begin(), codes.end()), 256, 6, table);
  dlsim::models::normalize_channels(two, 2, {0.5, 0.25}, {0.5, 0.5});
  REQUIRE_FALSE(two.train.features.is_coded());
  CHECK(two.train.features(0, 0) == (table[codes[0]] - 0.5) / 0.5);
  CHECK(two.train.features(0, 3) == (table[codes[3]] - 0.25) / 0.5);
}

TEST_CASE("coded storage: codes after a header are read in place") {
  std::mt19937_64 rng(25);
  const auto table = spread_table(rng);
  const auto codes = random_codes(6 * 4, rng);
  ByteBuffer file(7, 0xff);  // a 7-byte header, then the codes
  file.insert(file.end(), codes.begin(), codes.end());
  const FeatureMatrix m = FeatureMatrix::of_codes(std::move(file), 6, 4, table, 7);
  for (Index i = 0; i < 6; ++i)
    for (Index j = 0; j < 4; ++j) CHECK(m(i, j) == table[codes[std::size_t(i * 4 + j)]]);
}

TEST_CASE("byte buffer: values given are kept, through growth") {
  ByteBuffer b(100, 7);
  CHECK(std::count(b.begin(), b.end(), 7) == 100);
  b.insert(b.end(), {1, 2, 3});
  b.resize(1 << 20);  // a new block: the bytes move over
  CHECK(std::count(b.begin(), b.begin() + 100, 7) == 100);
  CHECK((b[100] == 1 && b[101] == 2 && b[102] == 3));
}

TEST_CASE("coded storage: a convolutional network reads the same doubles, to the last bit") {
  // LeNet-5 (the default architecture) on 28x28 inputs: gradients gather, evaluations take
  // each 500-row block widened whole, as plain storage gives it.
  std::mt19937_64 rng(24);
  const Twin t = twin(40, 784, 10, rng);
  const dlsim::models::ConvNet f(dlsim::models::cnn::Architecture{}, {.l2 = 1e-3},
                                 {.kind = dlsim::models::InitOptions::Kind::he},
                                 dlsim::models::Precision::double_);
  std::mt19937_64 init(3);
  const Vector w = f.initial_point(init);
  CHECK(f.loss(w, t.coded) == f.loss(w, t.plain));
  CHECK(f.accuracy(w, t.coded) == f.accuracy(w, t.plain));
  Vector gc, gp;
  f.gradient(w, t.coded, std::vector<Index>{3, 31, 7}, gc);
  f.gradient(w, t.plain, std::vector<Index>{3, 31, 7}, gp);
  CHECK(same_bits(gc, gp));
}
