// cnn::GrowingMat (models/objectives/cnn/layer.hpp): its storage grows and never shrinks,
// keeps its place when the shape gets smaller, and is aligned as an Eigen matrix's own; and
// cnn::Tensor, whose data is a view of one (copies deep, moves taking the storage).
#include <catch2/catch.hpp>

#include <cstdint>

#include "models/objectives/cnn/layer.hpp"

using namespace dlsim::models;
using namespace dlsim::models::cnn;

TEST_CASE("growing matrix: grows to the largest shape, keeps its storage when smaller") {
  GrowingMat<float> m;
  CHECK(m.capacity() == 0);
  auto big = m.resize(50, 7);
  CHECK(big.rows() == 50);
  CHECK(big.cols() == 7);
  CHECK(m.capacity() == 350);
  const float* first = big.data();
  CHECK(reinterpret_cast<std::uintptr_t>(first) % EIGEN_MAX_ALIGN_BYTES == 0);

  // Smaller: the same storage, the new shape, the capacity kept.
  auto small = m.resize(3, 7);
  CHECK(small.data() == first);
  CHECK(small.rows() == 3);
  CHECK(m.capacity() == 350);
  small(2, 6) = -1.0f;
  const GrowingMat<float>& read = m;
  CHECK(read.view().rows() == 3);
  CHECK(read.view()(2, 6) == -1.0f);  // column-major: (2, 6) is value 6·3 + 2
  CHECK(read.view().data()[6 * 3 + 2] == -1.0f);

  // Back to the largest shape: still no new storage.
  CHECK(m.resize(50, 7).data() == first);
  CHECK(m.resize(7, 50).data() == first);
  CHECK(m.capacity() == 350);

  // Larger than ever: new storage, aligned, and the capacity follows.
  auto larger = m.resize(51, 7);
  CHECK(m.capacity() == 357);
  CHECK(reinterpret_cast<std::uintptr_t>(larger.data()) % EIGEN_MAX_ALIGN_BYTES == 0);
  CHECK(larger.rows() == 51);
  larger.setZero();  // all 357 values are the matrix's own: `make sanitize` (ASan) checks it
}

TEST_CASE("tensor: its storage only grows; copies are deep, moves take the storage") {
  Tensor<double> t;
  t.resize({3, 4, 2}, 5);  // 4·2·5 rows, 3 channels
  CHECK(t.data.rows() == 40);
  CHECK(t.data.cols() == 3);
  CHECK(t.capacity() == 120);
  for (Index i = 0; i < t.data.size(); ++i) t.data.data()[i] = double(i);
  const double* storage = t.data.data();

  // A smaller batch: the same storage, the new shape.
  t.resize({3, 4, 2}, 2);
  CHECK(t.data.data() == storage);
  CHECK(t.data.rows() == 16);
  CHECK(t.batch == 2);
  CHECK(t.capacity() == 120);

  // A copy owns storage of its own, with equal values.
  Tensor<double> copy = t;
  CHECK(copy.data.data() != storage);
  CHECK(copy.data.rows() == 16);
  CHECK(copy.data == t.data);
  copy.data(0, 0) = -1;
  CHECK(t.data(0, 0) == 0);

  // Copy assignment into a tensor of another shape takes the source's shape.
  Tensor<double> other;
  other.resize({1, 1, 1}, 1);
  other = t;
  CHECK(other.shape == t.shape);
  CHECK(other.batch == 2);
  CHECK(other.data == t.data);

  // A move takes the storage: the view follows it, the source is left empty.
  Tensor<double> moved = std::move(t);
  CHECK(moved.data.data() == storage);
  CHECK(moved.data.rows() == 16);
  CHECK(moved.capacity() == 120);
  CHECK(t.capacity() == 0);  // NOLINT(bugprone-use-after-move): the moved-from state
  CHECK(t.data.size() == 0);
  Tensor<double> assigned;
  assigned = std::move(moved);
  CHECK(assigned.data.data() == storage);
  CHECK(assigned.data(3, 1) == 16 + 3);  // column 1 starts at value 16 of the 2-sample shape
}

TEST_CASE("tensor: an empty tensor copies, and a moved-from one is empty") {
  const Tensor<float> empty;
  Tensor<float> copy = empty;
  CHECK(copy.data.size() == 0);
  CHECK(copy.capacity() == 0);

  Tensor<float> t;
  t.resize({2, 3, 3}, 4);
  Tensor<float> taken = std::move(t);
  CHECK(taken.shape == Shape{2, 3, 3});
  CHECK(taken.batch == 4);
  CHECK(t.shape == Shape{});  // NOLINT(bugprone-use-after-move): the moved-from state
  CHECK(t.batch == 0);
  CHECK(t.data.size() == 0);
  const Tensor<float> copy_of_moved = t;  // takes the source view's 0 × 0 shape
  CHECK(copy_of_moved.data.size() == 0);
  t.resize({2, 3, 3}, 1);  // usable again
  CHECK(t.capacity() == 18);
}
