// cnn::GrowingMat (models/objectives/cnn/layer.hpp): its storage grows and never shrinks,
// keeps its place when the shape gets smaller, and is aligned as an Eigen matrix's own.
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
