// The samples × features matrix of a data set (row-major, one row per sample): either
// owned, or a read-only view of rows that something else keeps alive. The view is how the
// MPI ranks on one machine share one copy of the data set (docs/design.md §6): the rows
// live in shared memory, and every rank's Dataset maps them at the same alignment, so
// the math reads them exactly as it reads an owned matrix.
//
// The values are stored as doubles (float64, the default) or, when the scenario asks for
// it (`data.storage: "float32"`), rounded once to floats: half the memory and half the
// bytes a full-data evaluation streams. The math stays in doubles either way: readers
// take rows through gather(), times() and for_row_blocks(), which widen float32 rows to
// doubles (exactly: every float is a double) and read float64 rows as they are, through
// the same expressions as before float32 storage existed. float64 values a source reads
// as bytes (8-bit pixels) may be kept as those bytes and a table of their 256 values
// (of_codes): the readers widen them to the same doubles, or multiply them in the same
// order as Eigen (coded_rows.hpp), so results are float64's bit for bit.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <stdexcept>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "models/cpu/prefetch.hpp"
#include "models/data/byte_buffer.hpp"
#include "models/data/coded_rows.hpp"
#include "models/data/float_rows.hpp"

namespace dlsim::models {

using Index = Eigen::Index;
using Matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// How the values of a FeatureMatrix are stored (`data.storage`).
enum class Storage { float64, float32 };

class FeatureMatrix {
 public:
  /// Reads of float64 storage go through this map. AlignedMax: an owned matrix is allocated
  /// with that alignment and a shared one is placed at it, so Eigen takes the same code
  /// path (and sums in the same order) for both.
  using View = Eigen::Map<const Matrix, Eigen::AlignedMax>;
  using ViewF = Eigen::Map<const MatrixF, Eigen::AlignedMax>;
  /// A block of rows of a View (what middleRows() gives).
  using ViewRows = decltype(std::declval<View>().middleRows(Index(0), Index(0)));
  /// float32 rows are converted this many at a time by for_row_blocks (64 rows of 785
  /// values are 400 KB of doubles: the block stays in the core's cache while it is read).
  static constexpr Index kConvertRows = 64;

  FeatureMatrix() = default;
  FeatureMatrix(Matrix rows) : owned_(std::move(rows)) {}  // NOLINT: implicit on purpose
  FeatureMatrix& operator=(Matrix rows) {
    *this = FeatureMatrix();
    owned_ = std::move(rows);
    return *this;
  }

  /// A view of `rows` x `cols` values of `storage` at `data` (aligned to
  /// EIGEN_MAX_ALIGN_BYTES), valid while `keep_alive` lives; copies of the view share it.
  static FeatureMatrix view_of(const void* data, Index rows, Index cols,
                               std::shared_ptr<const void> keep_alive,
                               Storage storage = Storage::float64) {
    FeatureMatrix m;
    m.storage_ = storage;
    m.values_ = data;
    m.rows_ = rows;
    m.cols_ = cols;
    m.view_ = true;
    m.keep_alive_ = std::move(keep_alive);
    return m;
  }

  /// Owned byte-coded float64 storage: rows x cols codes from bytes[first], value =
  /// table[code] (coded_rows.hpp). Lossless for data of at most 256 values (8-bit pixels),
  /// an eighth of the memory, and read through gather(), times() and for_row_blocks() with
  /// plain float64 storage's results bit for bit. `first` skips a file's header in place.
  static FeatureMatrix of_codes(ByteBuffer bytes, Index rows, Index cols,
                                const std::array<double, 256>& table, std::size_t first = 0);
  /// The same over the rows x cols `codes`, read-only memory that `owner` keeps alive (a
  /// mapped file, or the buffer above): the matrix shares `owner`.
  static FeatureMatrix of_codes(std::shared_ptr<const void> owner,
                                std::span<const std::uint8_t> codes, Index rows, Index cols,
                                const std::array<double, 256>& table);

  bool is_float32() const { return storage_ == Storage::float32; }
  bool is_coded() const { return table_ != nullptr; }
  /// Bytes per stored value (8, 4, or 1 when coded).
  Index value_bytes() const { return is_coded() ? 1 : is_float32() ? 4 : 8; }

  /// The values, plain float64 storage only (std::logic_error on float32 or byte codes:
  /// read through gather(), times() or for_row_blocks(), or view_float32()).
  View view() const {
    if (is_float32()) throw std::logic_error("FeatureMatrix: float32 storage has no double view");
    if (is_coded()) throw std::logic_error("FeatureMatrix: byte-coded storage has no double view");
    return elsewhere() ? View(static_cast<const double*>(values_), rows_, cols_)
                       : View(owned_.data(), owned_.rows(), owned_.cols());
  }
  /// The values of float32 storage (std::logic_error on float64).
  ViewF view_float32() const {
    if (!is_float32()) throw std::logic_error("FeatureMatrix: float64 storage has no float view");
    return ViewF(static_cast<const float*>(values_), rows_, cols_);
  }

  Index rows() const { return elsewhere() ? rows_ : owned_.rows(); }
  Index cols() const { return elsewhere() ? cols_ : owned_.cols(); }
  /// The stored values, rows() * cols() * value_bytes() bytes.
  const void* storage_data() const { return elsewhere() ? values_ : owned_.data(); }
  /// Shorthands of view() (float64 storage only).
  const double* data() const { return view().data(); }
  auto row(Index i) const { return view().row(i); }
  auto middleRows(Index first, Index count) const { return view().middleRows(first, count); }
  /// Value (i, j) as a double, any storage.
  double operator()(Index i, Index j) const {
    if (is_coded()) return table_->value[codes()[i * cols_ + j]];
    return is_float32() ? double(view_float32()(i, j)) : view()(i, j);
  }

  /// Asks the caches for the rows `rows`, as gather() will read them.
  void prefetch_rows(std::span<const Index> rows) const {
    const Index row_bytes = cols() * value_bytes();
    const auto* first = static_cast<const char*>(storage_data());
    for (const Index r : rows) prefetch_bytes(first + r * row_bytes, std::size_t(row_bytes));
  }

  /// The rows `rows`, in that order, as doubles into `out` (its storage is reused between
  /// calls of equal size).
  void gather(std::span<const Index> rows, Matrix& out) const {
    if (is_coded()) {
      out.resize(Index(rows.size()), cols_);
      for (std::size_t i = 0; i < rows.size(); ++i)
        widen_codes(codes() + rows[i] * cols_, *table_, out.data() + Index(i) * cols_, cols_);
      return;
    }
    if (!is_float32()) {
      out = view()(rows, Eigen::all);
      return;
    }
    const ViewF values = view_float32();
    out.resize(Index(rows.size()), values.cols());
    for (std::size_t i = 0; i < rows.size(); ++i)
      widen_floats(values.data() + rows[i] * values.cols(), out.data() + Index(i) * out.cols(),
                   values.cols());
  }

  /// z = (rows [first, first + count)) · w, w of cols() values: float64 storage through
  /// Eigen's matrix-vector product (byte codes: coded_rows_times, which sums as it does),
  /// float32 storage with float_rows_times (no copy).
  void times(Index first, Index count, const Eigen::Ref<const Eigen::VectorXd>& w,
             Eigen::VectorXd& z) const {
    if (is_coded() && count >= 2) {  // one row: Eigen takes a dot product, widened below
      z.resize(count);
      coded_rows_times(codes() + first * cols_, count, cols_, *table_, w.data(), z.data());
      return;
    }
    if (is_coded()) {
      z.noalias() = widened_rows(first, count) * w;
      return;
    }
    if (!is_float32()) {
      z.noalias() = view().middleRows(first, count) * w;
      return;
    }
    z.resize(count);
    float_rows_times(view_float32().data() + first * cols(), count, cols(), w.data(), z.data());
  }

  /// Calls f(offset, x) with the rows [first, first + count) as doubles: float64 storage
  /// in one call, x = those rows themselves (offset 0; byte codes: widened whole into a
  /// per-thread scratch, read as the same expression); float32 storage in blocks of at
  /// most `block` rows (offset: the block's first row − first), x = a per-thread scratch
  /// with the block converted. `x.rows()` is the block's size.
  template <class F>
  void for_row_blocks(Index first, Index count, F&& f, Index block = kConvertRows) const {
    if (is_coded()) {  // as float64 storage: one call, the rows widened whole
      f(Index(0), widened_rows(first, count));
      return;
    }
    if (!is_float32()) {
      f(Index(0), view().middleRows(first, count));
      return;
    }
    static thread_local Matrix scratch;
    const ViewF values = view_float32();
    for (Index done = 0; done < count; done += block) {
      const Index n = std::min(block, count - done);
      scratch.resize(n, values.cols());
      widen_floats(values.data() + (first + done) * values.cols(), scratch.data(),
                   n * values.cols());
      f(done, std::as_const(scratch));
    }
  }

  /// Byte-coded storage: the rows [first, first + count) widened to doubles at `to`, one
  /// after another (std::logic_error on other storage). What a product that makes its
  /// input rows a few at a time reads (dense_product::RowSource).
  void widen_rows(Index first, Index count, double* to) const {
    if (!is_coded()) throw std::logic_error("FeatureMatrix: widen_rows of storage without codes");
    widen_codes(codes() + first * cols_, *table_, to, count * cols_);
  }

  /// Rounds every value to the nearest float and keeps those (owned float64 storage
  /// only; float32 storage is left as it is). In place: the floats take the first half
  /// of the doubles' memory and the second half goes back to the kernel, so the
  /// conversion needs no new pages.
  void to_float32();
  /// Owned float32 storage of `values` (what to_float32() leaves, built directly by a
  /// loader that writes floats).
  static FeatureMatrix of_floats(MatrixF values);

  /// The rows `rows` (in that order) as owned storage of the same kind: float64, float32
  /// or byte codes with the same table (a subsample keeps the values and the memory per
  /// value).
  FeatureMatrix select_rows(std::span<const Index> rows) const;

  /// Byte-coded storage: every value v becomes (v − shift) / scale, computed once for each
  /// of the table's 256 values (the doubles that expression gives on float64 storage); the
  /// codes stay. In place when no copy shares the codes. std::logic_error otherwise.
  void shift_scale_codes(double shift, double scale);

  /// Byte-coded storage becomes plain float64 storage of the same values (what ranks
  /// share, tools/dlsim/mpi_data_sharing.cpp); any other storage is left as it is.
  void decode_codes() {
    if (!is_coded()) return;
    Matrix values(rows_, cols_);
    widen_codes(codes(), *table_, values.data(), rows_ * cols_);
    *this = std::move(values);
  }

  /// False for a view of rows kept elsewhere.
  bool owns() const { return !view_; }
  /// The owned float64 matrix, to build or edit it (loaders, preprocessing); a view or
  /// float32 storage is read-only (std::logic_error).
  Matrix& owned() {
    if (view_) throw std::logic_error("FeatureMatrix: a shared view is read-only");
    if (is_float32()) throw std::logic_error("FeatureMatrix: float32 storage is read-only");
    if (is_coded()) throw std::logic_error("FeatureMatrix: byte-coded storage is read-only");
    return owned_;
  }
  /// Frees owned storage (either kind); the matrix is then an empty float64 one.
  void release() { *this = Matrix(); }
  /// The owned storage's values, rows() * cols() * value_bytes() bytes, to move them
  /// elsewhere (std::logic_error on a view).
  void* owned_storage() {
    if (view_) throw std::logic_error("FeatureMatrix: a shared view is read-only");
    return elsewhere() ? const_cast<void*>(values_) : owned_.data();
  }

 private:
  struct Codes {                        // what keep_alive_ holds for byte codes
    std::shared_ptr<const void> owner;  // the memory holding the codes
    CodeTable table;
  };
  const std::uint8_t* codes() const { return static_cast<const std::uint8_t*>(values_); }
  // The coded rows [first, first + count) widened into a per-thread scratch, as the
  // expression view().middleRows(first, count) of float64 storage (same type, same values;
  // the scratch is aligned where the rows may not be, which Eigen's products and the
  // objectives' reductions over rows do not see: tests/coded_storage_test.cpp).
  ViewRows widened_rows(Index first, Index count) const {
    static thread_local Matrix scratch;
    if (scratch.rows() < count || scratch.cols() != cols_) scratch.resize(count, cols_);
    widen_codes(codes() + first * cols_, *table_, scratch.data(), count * cols_);
    return View(scratch.data(), count, cols_).middleRows(0, count);
  }
  // Owned float32 storage: the rows x cols floats at `values`, kept alive by `holder`.
  static FeatureMatrix owned_float32(const float* values, Index rows, Index cols,
                                     std::shared_ptr<const void> holder);
  // The values are at values_, not in owned_.
  bool elsewhere() const { return view_ || is_float32() || is_coded(); }

  Storage storage_ = Storage::float64;
  Matrix owned_;                      // owned float64 storage, unless elsewhere()
  const void* values_ = nullptr;      // otherwise: rows_ x cols_ values of storage_ here,
  Index rows_ = 0;                    // kept alive by keep_alive_ (a view's, or float32's
  Index cols_ = 0;                    // own buffer)
  bool view_ = false;                 // values_ belong to someone else (view_of)
  const CodeTable* table_ = nullptr;  // byte codes: value = table_->value[code]
  std::shared_ptr<const void> keep_alive_;
};

}  // namespace dlsim::models
