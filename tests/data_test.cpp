// Data sources and preprocessing: synthetic regression, CSV loading with its error
// messages, the test split and normalization.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "models/data/sources.hpp"
#include "models/objectives/least_squares.hpp"

using namespace dlsim::models;
namespace fs = std::filesystem;

namespace {

// A fresh directory under the system temp dir, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::random_device entropy;
    path_ = fs::temp_directory_path() / ("dlsim_data_test_" + std::to_string(entropy()));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path file = path_ / name;
    std::ofstream(file) << text;
    return file.string();
  }
  std::string path(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

// The DataError thrown by `f`, or a failed test.
template <typename F>
DataError data_error(F f) {
  try {
    f();
  } catch (const DataError& e) {
    return e;
  }
  FAIL("no DataError thrown");
  return DataError("", "");
}

Vector column_variances(const Matrix& x) {
  const Eigen::RowVectorXd mean = x.colwise().mean();
  return ((x.rowwise() - mean).array().square().colwise().sum() / double(x.rows()))
      .transpose()
      .matrix();
}

}  // namespace

// ---------------------------------------------------------------- synthetic regression

TEST_CASE("synthetic regression: shapes and determinism in the seed") {
  const SyntheticRegressionOptions options{
      .samples = 200, .features = 7, .noise = 0.1, .condition = 10.0};
  std::mt19937_64 a(5), b(5), c(6);
  const Dataset x = synthetic_regression(options, a);
  const Dataset y = synthetic_regression(options, b);
  const Dataset z = synthetic_regression(options, c);
  CHECK(x.size() == 200);
  CHECK(x.feature_count() == 7);
  CHECK(x.labels.size() == 200);
  CHECK(x.classes == 0);
  CHECK(x.features.view() == y.features.view());
  CHECK(x.labels == y.labels);
  CHECK(x.features.view() != z.features.view());
  CHECK(x.labels != z.labels);
}

TEST_CASE("synthetic regression: noise-free labels are exactly linear") {
  const SyntheticRegressionOptions options{
      .samples = 100, .features = 8, .noise = 0.0, .condition = 5.0};
  std::mt19937_64 rng(3);
  const Dataset data = synthetic_regression(options, rng);
  // Least squares optimum via the normal equations reaches loss ~0.
  const Eigen::MatrixXd a = data.features.view();
  const Vector w = (a.transpose() * a).ldlt().solve(a.transpose() * data.labels);
  const LeastSquares ls(8, {}, false, {});
  CHECK(ls.loss(w, data) < 1e-20);
  CHECK(ls.loss(Vector::Zero(8), data) > 0.1);

  std::mt19937_64 noisy_rng(3);
  const Dataset noisy = synthetic_regression(
      {.samples = 100, .features = 8, .noise = 0.5, .condition = 5.0}, noisy_rng);
  const Eigen::MatrixXd an = noisy.features.view();
  const Vector wn = (an.transpose() * an).ldlt().solve(an.transpose() * noisy.labels);
  CHECK(ls.loss(wn, noisy) > 0.05);  // noise cannot be fitted with 8 parameters
}

TEST_CASE("synthetic regression: column variances follow the condition number") {
  for (const double condition : {1.0, 10.0, 100.0}) {
    INFO("condition " << condition);
    std::mt19937_64 rng(11);
    const Dataset data = synthetic_regression(
        {.samples = 20000, .features = 5, .noise = 0.1, .condition = condition}, rng);
    const Vector var = column_variances(data.features.view());
    const double ratio = var.maxCoeff() / var.minCoeff();
    CHECK(ratio == Approx(condition).epsilon(0.3));
    CHECK(var(0) == Approx(1.0).epsilon(0.1));  // the largest eigenvalue is 1
    // Decreasing geometric spread: λ_k / λ_{k+1} = condition^(1/(d-1)).
    if (condition > 1) {
      for (Index k = 0; k + 1 < 5; ++k) CHECK(var(k) > var(k + 1));
    }
  }
  std::mt19937_64 rng(1);
  const Dataset one =
      synthetic_regression({.samples = 10, .features = 1, .noise = 0, .condition = 50}, rng);
  CHECK(one.feature_count() == 1);
}

// ---------------------------------------------------------------- csv

TEST_CASE("csv: a good file with the label column in the middle") {
  TempDir dir;
  const std::string path =
      dir.write("good.csv", "x1, label ,x2\n1.5,10,-2\n2e-3,  -1.25 ,+3\r\n4,0,5\n\n\n");
  const Dataset data = load_csv(path, "label");
  REQUIRE(data.size() == 3);
  REQUIRE(data.feature_count() == 2);
  CHECK(data.classes == 0);
  CHECK(data.features(0, 0) == 1.5);
  CHECK(data.features(0, 1) == -2.0);
  CHECK(data.features(1, 0) == 2e-3);
  CHECK(data.features(1, 1) == 3.0);
  CHECK(data.features(2, 0) == 4.0);
  CHECK(data.features(2, 1) == 5.0);
  CHECK(data.labels(0) == 10.0);
  CHECK(data.labels(1) == -1.25);
  CHECK(data.labels(2) == 0.0);

  // Another label column name.
  const Dataset other = load_csv(path, "x1");
  CHECK(other.labels(0) == 1.5);
  CHECK(other.features(0, 0) == 10.0);
}

TEST_CASE("csv: errors carry the file and the 1-based line") {
  TempDir dir;

  const std::string fields = dir.write("fields.csv", "a,label,b\n1,2,3\n4,5\n7,8,9\n");
  const DataError e1 = data_error([&] { load_csv(fields, "label"); });
  CHECK(e1.where() == fields + ":3");
  CHECK_THAT(e1.problem(), Catch::Contains("expected 3 fields, found 2"));

  const std::string number = dir.write("number.csv", "a,label,b\n1,2,3\n4,5,6\n7,x8,9\n");
  const DataError e2 = data_error([&] { load_csv(number, "label"); });
  CHECK(e2.where() == number + ":4");
  CHECK_THAT(e2.problem(), Catch::Contains("\"x8\" is not a number"));
  CHECK_THAT(std::string(e2.what()), Catch::StartsWith(number + ":4: "));

  const std::string missing = dir.write("missing.csv", "a,b,c\n1,2,3\n");
  const DataError e3 = data_error([&] { load_csv(missing, "label"); });
  CHECK(e3.where() == missing);
  CHECK(e3.problem() == "no column \"label\" in header");

  const std::string nofile = dir.path("does_not_exist.csv");
  const DataError e4 = data_error([&] { load_csv(nofile, "label"); });
  CHECK(e4.where() == nofile);
  CHECK(e4.problem() == "cannot read file: No such file or directory");

  const std::string empty = dir.write("empty.csv", "");
  const DataError e5 = data_error([&] { load_csv(empty, "label"); });
  CHECK(e5.where() == empty + ":1");

  const std::string quoted = dir.write("quoted.csv", "a,label\n\"1\",2\n");
  const DataError e6 = data_error([&] { load_csv(quoted, "label"); });
  CHECK(e6.where() == quoted + ":2");
  CHECK_THAT(e6.problem(), Catch::Contains("quoted"));

  const std::string blank = dir.write("blank.csv", "a,label\n1,2\n\n3,4\n");
  CHECK(data_error([&] { load_csv(blank, "label"); }).where() == blank + ":3");

  const std::string header_only = dir.write("header.csv", "a,label\n");
  CHECK(data_error([&] { load_csv(header_only, "label"); }).where() == header_only + ":2");

  const std::string inf = dir.write("inf.csv", "a,label\n1,2\ninf,4\n");
  CHECK(data_error([&] { load_csv(inf, "label"); }).where() == inf + ":3");

  const std::string empty_field = dir.write("empty_field.csv", "a,label\n1,2\n,4\n");
  CHECK(data_error([&] { load_csv(empty_field, "label"); }).where() == empty_field + ":3");

  CHECK(data_error([&] { load_csv(dir.path(""), "label"); }).problem() ==
        "cannot read file: Is a directory");
}

// ---------------------------------------------------------------- split and normalize

TEST_CASE("split_test_fraction moves a seeded random subset to the test set") {
  DataSplit split;
  split.train.features.owned().resize(10, 2);
  split.train.labels.resize(10);
  for (Index i = 0; i < 10; ++i) {
    split.train.features.owned().row(i) << double(i), double(10 * i);
    split.train.labels(i) = double(i);
  }
  split.train.classes = 3;
  DataSplit copy = split;

  std::mt19937_64 rng(4);
  split_test_fraction(split, 0.3, rng);
  REQUIRE(split.test);
  CHECK(split.test->size() == 3);
  CHECK(split.train.size() == 7);
  CHECK(split.test->classes == 3);
  std::set<double> seen;
  for (const Dataset* d : {&split.train, &*split.test}) {
    for (Index i = 0; i < d->size(); ++i) {
      CHECK(d->features(i, 1) == 10 * d->labels(i));  // rows stay intact
      seen.insert(d->labels(i));
    }
  }
  CHECK(seen.size() == 10);

  std::mt19937_64 same(4);
  split_test_fraction(copy, 0.3, same);
  CHECK(copy.test->labels == split.test->labels);

  // Random, not the first or last rows: different seeds pick different test sets.
  std::set<std::vector<double>> picks;
  for (std::uint64_t seed = 0; seed < 5; ++seed) {
    DataSplit s;
    s.train = copy.train;
    s.train.labels = Vector::LinSpaced(7, 0, 6);
    std::mt19937_64 r(seed);
    split_test_fraction(s, 0.5, r);
    picks.insert(std::vector<double>(s.test->labels.begin(), s.test->labels.end()));
  }
  CHECK(picks.size() > 1);

  DataSplit unchanged;
  unchanged.train = copy.train;
  split_test_fraction(unchanged, 0.0, rng);
  CHECK_FALSE(unchanged.test);
  CHECK(unchanged.train.size() == 7);

  DataSplit tiny;
  tiny.train.features = Matrix::Zero(2, 1);
  tiny.train.labels = Vector::Zero(2);
  split_test_fraction(tiny, 0.9, rng);  // round(1.8) = 2, but one training sample stays
  CHECK(tiny.train.size() == 1);
  CHECK(tiny.test->size() == 1);
}

TEST_CASE("normalize: standard uses training statistics for both splits") {
  DataSplit split;
  split.train.features.owned().resize(4, 3);
  split.train.features.owned() << 1, 10, 7,  //
      2, 20, 7,                              //
      3, 30, 7,                              //
      6, 60, 7;
  split.train.labels = Vector::Zero(4);
  Dataset test;
  test.features.owned().resize(1, 3);
  test.features.owned() << 4, 0, 9;
  test.labels = Vector::Zero(1);
  split.test = test;

  normalize(split, "standard");
  const Matrix& x = split.train.features.view();
  const Eigen::RowVectorXd mean = x.colwise().mean();
  CHECK(std::abs(mean(0)) < 1e-12);
  CHECK(std::abs(mean(1)) < 1e-12);
  const Vector var = column_variances(x);
  CHECK(var(0) == Approx(1.0).epsilon(1e-12));
  CHECK(var(1) == Approx(1.0).epsilon(1e-12));
  CHECK(x.col(2) == Vector::Zero(4));  // constant column: centred only
  // Column 0 on train: mean 3, population variance (4 + 1 + 0 + 9)/4 = 3.5.
  CHECK(split.test->features(0, 0) == Approx((4.0 - 3.0) / std::sqrt(3.5)).epsilon(1e-14));
  CHECK(split.test->features(0, 1) == Approx((0.0 - 30.0) / std::sqrt(350.0)).epsilon(1e-14));
  CHECK(split.test->features(0, 2) == 2.0);  // 9 − 7, not scaled
}

TEST_CASE("normalize: minmax maps the training set into [0, 1]") {
  std::mt19937_64 rng(9);
  DataSplit split;
  split.train =
      synthetic_regression({.samples = 50, .features = 4, .noise = 0.1, .condition = 3}, rng);
  split.train.features.owned().col(3).setConstant(-2.5);
  split.test =
      synthetic_regression({.samples = 5, .features = 4, .noise = 0.1, .condition = 3}, rng);
  const double min0 = split.train.features.view().col(0).minCoeff();
  const double max0 = split.train.features.view().col(0).maxCoeff();
  const double test0 = split.test->features(0, 0);
  const Vector labels = split.train.labels;

  normalize(split, "minmax");
  const Matrix& x = split.train.features.view();
  CHECK(x.minCoeff() >= 0.0);
  CHECK(x.maxCoeff() <= 1.0);
  for (Index k = 0; k < 3; ++k) {
    CHECK(x.col(k).minCoeff() == 0.0);
    CHECK(x.col(k).maxCoeff() == Approx(1.0).epsilon(1e-15));
  }
  CHECK(x.col(3) == Vector::Zero(50));
  CHECK(split.test->features(0, 0) == Approx((test0 - min0) / (max0 - min0)).epsilon(1e-14));
  CHECK(split.train.labels == labels);  // labels are never touched
}

TEST_CASE("normalize: none and unknown kinds") {
  DataSplit split;
  split.train.features = Matrix::Constant(3, 2, 4.0);
  split.train.labels = Vector::Zero(3);
  normalize(split, "none");
  CHECK(split.train.features.view() == Matrix::Constant(3, 2, 4.0));
  CHECK_THROWS_AS(normalize(split, "zscore"), std::invalid_argument);
}

TEST_CASE("normalize_channels: given and fitted per-channel statistics, both splits") {
  // Two channels of two pixels each, channel-major: columns (c0 p0, c0 p1, c1 p0, c1 p1).
  DataSplit split;
  split.train.features.owned().resize(2, 4);
  split.train.features.owned() << 0, 2, 5, 5,  //
      4, 6, 5, 5;
  split.train.labels = Vector::Zero(2);
  Dataset test;
  test.features.owned().resize(1, 4);
  test.features.owned() << 3, 1, 6, 4;
  test.labels = Vector::Zero(1);
  split.test = test;

  DataSplit given = split;
  normalize_channels(given, 2, {0.5, 1.0}, {0.5, 2.0});  // torchvision Normalize
  Matrix expected(2, 4);
  expected << -1, 3, 2, 2,  //
      7, 11, 2, 2;
  CHECK(given.train.features.view() == expected);
  CHECK(given.test->features.view() == (Matrix(1, 4) << 5, 1, 2.5, 1.5).finished());

  // Fitted: channel 0 holds 0, 2, 4, 6 (mean 3, population variance (9+1+1+9)/4 = 5);
  // channel 1 is constant 5, so it is centred only.
  normalize_channels(split, 2, {}, {});
  const double sd = std::sqrt(5.0);
  expected << -3 / sd, -1 / sd, 0, 0,  //
      1 / sd, 3 / sd, 0, 0;
  CHECK((split.train.features.view() - expected).cwiseAbs().maxCoeff() < 1e-15);
  CHECK((split.test->features.view() - (Matrix(1, 4) << 0, -2 / sd, 1, -1).finished())
            .cwiseAbs()
            .maxCoeff() < 1e-15);
  CHECK_THROWS_AS(normalize_channels(split, 3, {}, {}), std::invalid_argument);
}
