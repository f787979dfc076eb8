// FeatureMatrix (models/data/feature_matrix.hpp): a read-only view of rows kept elsewhere
// (how the MPI ranks of one machine share one copy of the data set) reads exactly like the
// owned matrix: every objective's loss, evaluation sums and gradients are bit-identical on
// the two, for contiguous and scattered batches; a view cannot be edited and keeps its
// storage alive for as long as any copy of it exists.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <memory>
#include <vector>

#include "models/objectives/least_squares.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"

using dlsim::models::Dataset;
using dlsim::models::FeatureMatrix;
using dlsim::models::Index;
using dlsim::models::Vector;

namespace {

// The rows of `owned` copied into a fresh buffer at a 64-byte boundary (as the shared
// copy is placed), and a data set that views them.
Dataset viewed_copy(const Dataset& owned, std::weak_ptr<const void>* storage = nullptr) {
  const std::size_t bytes = std::size_t(8 * owned.features.rows() * owned.features.cols());
  auto buffer = std::shared_ptr<std::byte[]>(new std::byte[bytes + 64]);
  auto* start = buffer.get() + (64 - std::uintptr_t(buffer.get()) % 64) % 64;
  std::memcpy(start, owned.features.data(), bytes);
  Dataset d;
  d.features = FeatureMatrix::view_of(reinterpret_cast<const double*>(start), owned.features.rows(),
                                      owned.features.cols(), buffer);
  d.labels = owned.labels;
  d.classes = owned.classes;
  if (storage) *storage = buffer;
  return d;
}

// loss, data_loss, accuracy, data_sums over a chunk, and gradients over a contiguous and a
// scattered batch: equal to the last bit on `a` and `b`.
void same_math(const dlsim::models::Objective& f, const Dataset& a, const Dataset& b) {
  const Vector w = dlsim::test::random_vector(f.dimension(), 7, 0.3);
  CHECK(f.loss(w, a) == f.loss(w, b));
  CHECK(f.data_loss(w, a) == f.data_loss(w, b));
  CHECK(f.accuracy(w, a) == f.accuracy(w, b));
  const auto sa = f.data_sums(w, a, 3, 41), sb = f.data_sums(w, b, 3, 41);
  REQUIRE(sa.has_value() == sb.has_value());
  if (sa) {
    CHECK(sa->loss == sb->loss);
    CHECK(sa->correct == sb->correct);
  }
  for (const std::vector<Index>& rows : {std::vector<Index>{5, 6, 7, 8}, std::vector<Index>{17},
                                         std::vector<Index>{40, 2, 33, 9, 11}}) {
    Vector ga, gb;
    f.gradient(w, a, rows, ga);
    f.gradient(w, b, rows, gb);
    CHECK(ga == gb);
  }
}

}  // namespace

TEST_CASE("feature matrix: a view reads like the owned matrix, to the last bit") {
  // 21 features: rows are not 16-byte aligned, so Eigen peels at row starts.
  for (const Index d : {Index(21), Index(64)}) {
    INFO("features " << d);
    Dataset owned = dlsim::test::classification_data(50, d, 3, 11);
    const Dataset view = viewed_copy(owned);
    REQUIRE_FALSE(view.features.owns());
    CHECK(view.features.rows() == 50);
    CHECK(view.features.cols() == d);
    CHECK(view.features(4, 2) == owned.features(4, 2));
    CHECK(view.features.view() == owned.features.view());
    same_math(dlsim::models::Softmax(d, 3, {.l2 = 0.01}, true, {}), owned, view);
    same_math(dlsim::models::Mlp(d, {8}, 3, dlsim::models::Activation::relu, {}, true,
                                 {.kind = dlsim::models::InitOptions::Kind::normal}),
              owned, view);
    Dataset binary = owned;
    for (Index i = 0; i < binary.size(); ++i) binary.labels(i) = binary.labels(i) > 0 ? 1 : -1;
    same_math(dlsim::models::Logistic(d, {.l2 = 0.01}, true, {}), binary, viewed_copy(binary));
    same_math(dlsim::models::LeastSquares(d, {}, true, {}), owned, view);
  }
}

TEST_CASE("feature matrix: a view is read-only and keeps its rows alive") {
  std::weak_ptr<const void> storage;
  Dataset copy;
  {
    const Dataset owned = dlsim::test::classification_data(6, 4, 2, 3);
    Dataset view = viewed_copy(owned, &storage);
    CHECK_THROWS_AS(view.features.owned(), std::logic_error);
    copy = view;  // copies share the rows
    CHECK(copy.features.data() == view.features.data());
    CHECK(copy.features.view() == owned.features.view());
  }
  CHECK_FALSE(storage.expired());  // `copy` still holds them
  CHECK(copy.features.rows() == 6);
  copy.features = dlsim::models::Matrix::Ones(2, 2);  // owned again: the view is dropped
  CHECK(copy.features.owns());
  CHECK(storage.expired());
  copy.features.owned()(0, 1) = 5;
  CHECK(copy.features(0, 1) == 5);
}
