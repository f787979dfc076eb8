// float32 storage of the features (data.storage, models/data/feature_matrix.hpp): every
// value is rounded once to the nearest float and read back widened to a double. Checked
// against independent truth: each stored value is float(x); the float rows' products sum
// in the order float_rows.hpp documents (recomputed here in plain scalar code, bit for
// bit) and agree with a long double sum; gradients, which gather rows into doubles, equal
// the float64 storage's to the last bit when the values are floats already; evaluation
// sums agree to rounding (a convolutional network's, which converts whole blocks, exactly);
// a shared float32 view (MPI ranks) reads like owned storage.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <random>
#include <vector>

#include "models/data/float_rows.hpp"
#include "models/objectives/cnn/architectures.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "models/objectives/least_squares.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"

using dlsim::models::Dataset;
using dlsim::models::FeatureMatrix;
using dlsim::models::Index;
using dlsim::models::Matrix;
using dlsim::models::Storage;
using dlsim::models::Vector;

namespace {

// The documented order of float_rows_times, one row at a time in scalar code: in blocks of
// four, a0 += x0 w0 + x2 w2 and a1 += x1 w1 + x3 w3; then a0 + a1; then the tail in order.
double documented_row_sum(const float* x, Index cols, const double* w) {
  double a0 = 0, a1 = 0;
  Index k = 0;
  for (; k + 4 <= cols; k += 4) {
    const double p0 = double(x[k]) * w[k], p2 = double(x[k + 2]) * w[k + 2];
    const double p1 = double(x[k + 1]) * w[k + 1], p3 = double(x[k + 3]) * w[k + 3];
    a0 += p0 + p2;
    a1 += p1 + p3;
  }
  double s = a0 + a1;
  for (; k < cols; ++k) s += double(x[k]) * w[k];
  return s;
}

// The data set with every feature rounded to a float but still stored as doubles.
Dataset rounded_to_floats(Dataset d) {
  Matrix& x = d.features.owned();
  x = x.cast<float>().cast<double>();
  return d;
}

Dataset as_float32(Dataset d) {
  d.features.to_float32();
  return d;
}

}  // namespace

TEST_CASE("float32 storage: every value is rounded once, to the nearest float") {
  const Dataset doubles = dlsim::test::classification_data(37, 13, 3, 5);
  const Dataset floats = as_float32(doubles);
  REQUIRE(floats.features.is_float32());
  CHECK(floats.features.value_bytes() == 4);
  CHECK(floats.features.rows() == 37);
  CHECK(floats.features.cols() == 13);
  CHECK(floats.features.owns());
  bool all_rounded = true, some_changed = false;
  for (Index i = 0; i < 37; ++i)
    for (Index j = 0; j < 13; ++j) {
      const double x = doubles.features(i, j);
      all_rounded &= floats.features(i, j) == double(float(x));
      some_changed |= floats.features(i, j) != x;
    }
  CHECK(all_rounded);
  CHECK(some_changed);  // the data is not made of floats already: rounding happened
  CHECK_THROWS_AS(floats.features.view(), std::logic_error);
  Dataset editable = floats;
  CHECK_THROWS_AS(editable.features.owned(), std::logic_error);
  CHECK_THROWS_AS(doubles.features.view_float32(), std::logic_error);

  // gather: the rows in the order asked, widened.
  const std::vector<Index> rows{30, 2, 2, 17};
  Matrix gathered;
  floats.features.gather(rows, gathered);
  REQUIRE(gathered.rows() == 4);
  for (Index r = 0; r < 4; ++r)
    for (Index j = 0; j < 13; ++j) CHECK(gathered(r, j) == floats.features(rows[r], j));
}

TEST_CASE("float32 storage: converting an empty or a one-value matrix") {
  FeatureMatrix empty = Matrix(0, 5);
  empty.to_float32();
  CHECK(empty.is_float32());
  CHECK(empty.rows() == 0);
  CHECK(empty.cols() == 5);
  FeatureMatrix one = Matrix(Matrix::Constant(1, 1, 0.1));
  one.to_float32();
  CHECK(one(0, 0) == double(0.1f));
}

TEST_CASE("float32 rows times a vector: the documented order, and close to exact") {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> normal;
  for (const Index rows : {1, 3, 8, 9, 16, 17, 40})
    for (const Index cols : {1, 2, 3, 4, 5, 7, 8, 785}) {
      std::vector<float> x(static_cast<std::size_t>(rows * cols));
      std::vector<double> w(static_cast<std::size_t>(cols)), z(static_cast<std::size_t>(rows));
      for (float& v : x) v = float(normal(rng));
      for (double& v : w) v = normal(rng);
      dlsim::models::float_rows_times(x.data(), rows, cols, w.data(), z.data());
      for (Index i = 0; i < rows; ++i) {
        INFO("rows " << rows << " cols " << cols << " row " << i);
        const float* row = x.data() + i * cols;
        CHECK(z[std::size_t(i)] == documented_row_sum(row, cols, w.data()));
        long double exact = 0, magnitude = 0;
        for (Index k = 0; k < cols; ++k) {
          exact += (long double)row[k] * w[std::size_t(k)];
          magnitude += std::abs((long double)row[k] * w[std::size_t(k)]);
        }
        CHECK(std::abs(double((long double)z[std::size_t(i)] - exact)) <=
              1e-15 * double(magnitude) * double(cols));
      }
    }
}

TEST_CASE("float32 storage: the objectives' math, against float64 storage of the same floats") {
  for (const Index d : {Index(21), Index(64)}) {
    INFO("features " << d);
    const Dataset doubles = rounded_to_floats(dlsim::test::classification_data(150, d, 3, 9));
    const Dataset floats = as_float32(doubles);
    Dataset binary = doubles;
    for (Index i = 0; i < binary.size(); ++i) binary.labels(i) = binary.labels(i) > 0 ? 1 : -1;
    const Dataset binary_floats = as_float32(binary);

    const auto compare = [&](const dlsim::models::Objective& f, const Dataset& a,
                             const Dataset& b) {
      const Vector w = dlsim::test::random_vector(f.dimension(), 4, 0.3);
      // Gradients gather the rows into doubles: the same numbers, the same code after.
      for (const std::vector<Index>& rows : {std::vector<Index>{5, 6, 7, 8}, std::vector<Index>{17},
                                             std::vector<Index>{99, 2, 33}}) {
        Vector ga, gb;
        f.gradient(w, a, rows, ga);
        f.gradient(w, b, rows, gb);
        CHECK(ga == gb);
      }
      // Evaluations sum in blocks of their own: equal up to rounding.
      CHECK(f.loss(w, b) == Approx(f.loss(w, a)).epsilon(1e-12));
      CHECK(f.accuracy(w, b) == f.accuracy(w, a));
      const auto sa = f.data_sums(w, a, 3, 141), sb = f.data_sums(w, b, 3, 141);
      REQUIRE(sa.has_value());
      REQUIRE(sb.has_value());
      CHECK(sb->loss == Approx(sa->loss).epsilon(1e-12));
      CHECK(sb->correct == sa->correct);
    };
    compare(dlsim::models::Softmax(d, 3, {.l2 = 0.01}, true, {}), doubles, floats);
    compare(dlsim::models::Mlp(d, {8}, 3, dlsim::models::Activation::tanh, {}, true,
                               {.kind = dlsim::models::InitOptions::Kind::normal}),
            doubles, floats);
    compare(dlsim::models::Logistic(d, {.l2 = 0.01}, true, {}), binary, binary_floats);
    compare(dlsim::models::LeastSquares(d, {}, true, {}), doubles, floats);
  }
}

TEST_CASE("float32 storage: a shared view reads like the owned floats, to the last bit") {
  Dataset owned = as_float32(dlsim::test::classification_data(90, 21, 3, 2));
  const std::size_t bytes = std::size_t(4 * owned.features.rows() * owned.features.cols());
  auto buffer = std::shared_ptr<std::byte[]>(new std::byte[bytes + 64]);
  auto* start = buffer.get() + (64 - std::uintptr_t(buffer.get()) % 64) % 64;
  std::memcpy(start, owned.features.storage_data(), bytes);
  Dataset view = owned;
  view.features = FeatureMatrix::view_of(start, owned.features.rows(), owned.features.cols(),
                                         buffer, Storage::float32);
  CHECK_FALSE(view.features.owns());
  CHECK(view.features.is_float32());
  CHECK_THROWS_AS(view.features.owned_storage(), std::logic_error);
  const dlsim::models::Softmax f(21, 3, {.l2 = 0.01}, true, {});
  const Vector w = dlsim::test::random_vector(f.dimension(), 8, 0.3);
  CHECK(f.loss(w, view) == f.loss(w, owned));
  Vector ga, gb;
  f.gradient(w, owned, std::vector<Index>{4, 80, 7}, ga);
  f.gradient(w, view, std::vector<Index>{4, 80, 7}, gb);
  CHECK(ga == gb);
}

TEST_CASE("float32 storage: a convolutional network reads the same doubles, to the last bit") {
  // LeNet-5 (the default architecture) on 28x28 inputs: gradients gather, evaluations
  // convert each 500-row block whole, so on float-exact values both equal float64
  // storage's exactly.
  const Dataset doubles = rounded_to_floats(dlsim::test::classification_data(40, 784, 10, 12));
  const Dataset floats = as_float32(doubles);
  const dlsim::models::ConvNet f(dlsim::models::cnn::Architecture{}, {.l2 = 1e-3},
                                 {.kind = dlsim::models::InitOptions::Kind::he},
                                 dlsim::models::Precision::double_);
  std::mt19937_64 rng(3);
  const Vector w = f.initial_point(rng);
  CHECK(f.loss(w, floats) == f.loss(w, doubles));
  CHECK(f.accuracy(w, floats) == f.accuracy(w, doubles));
  Vector ga, gb;
  f.gradient(w, doubles, std::vector<Index>{3, 31, 7}, ga);
  f.gradient(w, floats, std::vector<Index>{3, 31, 7}, gb);
  CHECK(ga == gb);
}
