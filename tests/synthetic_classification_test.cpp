// synthetic-classification and label fitting (binarize for logistic, class indices for
// softmax/mlp).
#include <catch2/catch.hpp>

#include "models/data/labels.hpp"
#include "models/data/sources.hpp"

using namespace dlsim::models;

TEST_CASE("synthetic classification: shape, labels, determinism") {
  std::mt19937_64 a(1), b(1);
  const Dataset x = synthetic_classification({500, 7, 3, 2.0}, a);
  const Dataset y = synthetic_classification({500, 7, 3, 2.0}, b);
  CHECK(x.features.view() == y.features.view());
  CHECK(x.labels == y.labels);
  CHECK(x.size() == 500);
  CHECK(x.feature_count() == 7);
  CHECK(x.classes == 3);
  for (int c = 0; c < 3; ++c) CHECK((x.labels.array() == c).count() > 100);  // ≈ 167 each
  CHECK(((x.labels.array() >= 0) && (x.labels.array() <= 2)).all());
}

TEST_CASE("synthetic classification: within-class spread is 1, centres separate with s") {
  std::mt19937_64 rng(2);
  const Index d = 50;
  const Dataset data = synthetic_classification({20000, d, 2, 10.0}, rng);
  Eigen::RowVectorXd mean[2];
  double spread = 0;
  for (int c = 0; c < 2; ++c) {
    std::vector<Index> rows;
    for (Index i = 0; i < data.size(); ++i)
      if (data.labels(i) == c) rows.push_back(i);
    const Matrix members = data.features.view()(rows, Eigen::all);
    mean[c] = members.colwise().mean();
    spread += (members.rowwise() - mean[c]).squaredNorm() / double(members.rows() * d) / 2.0;
  }
  CHECK(spread == Approx(1.0).epsilon(0.02));
  // ||μ0 − μ1||² ~ 2s²·χ²_d/d: mean 200, sd 200·sqrt(2/50) = 40; allow 4 sd.
  CHECK((mean[0] - mean[1]).squaredNorm() == Approx(200.0).margin(160.0));
}

TEST_CASE("labels: {0,1} and ±1 binarize; positive_classes picks classes") {
  DataSplit split;
  split.train.labels = Vector::LinSpaced(4, 0, 1).array().round();  // 0 0 1 1
  binarize_labels(split, {});
  CHECK(split.train.labels == (Vector(4) << -1, -1, 1, 1).finished());

  DataSplit multi;
  multi.train.labels = (Vector(5) << 0, 3, 7, 3, 9).finished();
  multi.test = Dataset{};
  multi.test->labels = (Vector(2) << 7, 1).finished();
  binarize_labels(multi, {3, 7});
  CHECK(multi.train.labels == (Vector(5) << -1, 1, 1, 1, -1).finished());
  CHECK(multi.test->labels == (Vector(2) << 1, -1).finished());

  DataSplit bad;
  bad.train.labels = (Vector(3) << 0, 1, 2).finished();
  CHECK_THROWS_WITH(binarize_labels(bad, {}),
                    Catch::Contains("label 2") && Catch::Contains("positive_classes"));
  DataSplit one_class;
  one_class.train.labels = (Vector(3) << 4, 4, 5).finished();
  CHECK_THROWS_WITH(binarize_labels(one_class, {9}), Catch::Contains("one class"));
}

TEST_CASE("labels: distinct label values become class indices in increasing order") {
  DataSplit split;
  split.train.labels = (Vector(5) << 5, -1, 2, 5, 2).finished();
  split.test = Dataset{};
  split.test->labels = (Vector(2) << 2, -1).finished();
  index_classes(split);
  CHECK(split.train.classes == 3);
  CHECK(split.train.labels == (Vector(5) << 2, 0, 1, 2, 1).finished());
  CHECK(split.test->labels == (Vector(2) << 1, 0).finished());

  DataSplit unseen = split;
  unseen.train.classes = 0;
  unseen.train.labels = (Vector(2) << 0, 1).finished();
  unseen.test->labels = (Vector(1) << 3).finished();
  CHECK_THROWS_WITH(index_classes(unseen), Catch::Contains("does not occur"));

  DataSplit real;
  real.train.labels = (Vector(2) << 0.5, 1).finished();
  CHECK_THROWS_WITH(index_classes(real), Catch::Contains("not an integer"));
}
