// The samples × features matrix of a data set (row-major, one row per sample): either
// owned, or a read-only view of rows that something else keeps alive. The view is how the
// MPI ranks on one machine share one copy of the data set (docs/design.md §6): the rows
// live in shared memory, and every rank's Dataset maps them at the same alignment, so
// the math reads them exactly as it reads an owned matrix.
#pragma once

#include <memory>
#include <stdexcept>
#include <utility>

#include <Eigen/Dense>

namespace dlsim::models {

using Index = Eigen::Index;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

class FeatureMatrix {
 public:
  /// Reads go through this map. AlignedMax: an owned matrix is allocated with that
  /// alignment and a shared one is placed at it, so Eigen takes the same code path (and
  /// sums in the same order) for both.
  using View = Eigen::Map<const Matrix, Eigen::AlignedMax>;

  FeatureMatrix() = default;
  FeatureMatrix(Matrix rows) : owned_(std::move(rows)) {}  // NOLINT: implicit on purpose
  FeatureMatrix& operator=(Matrix rows) {
    owned_ = std::move(rows);
    shared_ = nullptr;
    keep_alive_.reset();
    return *this;
  }

  /// A view of `rows` x `cols` doubles at `data` (aligned to EIGEN_MAX_ALIGN_BYTES), valid
  /// while `keep_alive` lives; copies of the view share it.
  static FeatureMatrix view_of(const double* data, Index rows, Index cols,
                               std::shared_ptr<const void> keep_alive) {
    FeatureMatrix m;
    m.shared_ = data;
    m.shared_rows_ = rows;
    m.shared_cols_ = cols;
    m.keep_alive_ = std::move(keep_alive);
    return m;
  }

  View view() const {
    return shared_ ? View(shared_, shared_rows_, shared_cols_)
                   : View(owned_.data(), owned_.rows(), owned_.cols());
  }
  Index rows() const { return view().rows(); }
  Index cols() const { return view().cols(); }
  const double* data() const { return view().data(); }
  double operator()(Index i, Index j) const { return view()(i, j); }
  auto row(Index i) const { return view().row(i); }
  auto middleRows(Index first, Index count) const { return view().middleRows(first, count); }

  /// False for a view of rows kept elsewhere.
  bool owns() const { return shared_ == nullptr; }
  /// The owned matrix, to build or edit it (loaders, preprocessing); a view is read-only.
  Matrix& owned() {
    if (shared_) throw std::logic_error("FeatureMatrix: a shared view is read-only");
    return owned_;
  }

 private:
  Matrix owned_;
  const double* shared_ = nullptr;
  Index shared_rows_ = 0;
  Index shared_cols_ = 0;
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace dlsim::models
