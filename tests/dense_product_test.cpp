// The dense layers' products (models/cpu/dense_product.hpp) against Eigen's own
// `out.noalias() = x * W`, `x * W.transpose()` and `x.transpose() * g`, bit for bit, over shapes
// that take every part of the order it keeps: several depth blocks (kc), several output blocks (mc)
// and sample blocks (nc), one-packet outputs at every place in a vector, samples left over after
// each block's multiple of 4, and the shapes Eigen sends elsewhere (a single sample or output, tiny
// products). Values span e^±9 with ±0 and subnormals mixed in, where another order or a
// fused multiply-add would show.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

#include "models/cpu/dense_product.hpp"
#include "models/cpu/instruction_set.hpp"

namespace {

using dlsim::models::Index;
using dlsim::models::Matrix;
namespace dp = dlsim::models::dense_product;

void fill_awkward(double* v, Index n, std::mt19937_64& rng) {
  std::normal_distribution<double> z;
  for (Index i = 0; i < n; ++i) {
    switch (rng() % 16) {
      case 0:
        v[i] = 0.0;
        break;
      case 1:
        v[i] = -0.0;
        break;
      case 2:
        v[i] = std::numeric_limits<double>::denorm_min() * double(rng() % 1000);
        break;
      default:
        v[i] = z(rng) * std::exp(3 * z(rng));
    }
  }
}

// Over every shape rows × depth × cols of the lists (up to 4·10⁷ multiply-adds) that
// `vectorized` sends to the kernel: how many shapes, how many differ from Eigen (`same`),
// and whether some had several depth (kc), row (mc) and column (nc) blocks and some the
// `special` feature each test asks for.
struct Sweep {
  int shapes = 0, differ = 0;
  bool several_kc = false, several_mc = false, several_nc = false, special = false;
};

template <class Vectorized, class BlockingOf, class Special, class Same>
Sweep sweep(std::initializer_list<Index> rows_list, std::initializer_list<Index> depth_list,
            std::initializer_list<Index> cols_list, Vectorized vectorized, BlockingOf blocking_of,
            Special special, Same same) {
  Sweep r;
  for (Index rows : rows_list)
    for (Index depth : depth_list)
      for (Index cols : cols_list) {
        if (double(rows) * double(depth) * double(cols) > 4e7) continue;
        if (!vectorized(rows, depth, cols)) continue;
        // Eigen's product of this shape: blocks of its depth, rows and columns.
        const auto [depth_e, rows_e, cols_e, b] = blocking_of(rows, depth, cols);
        r.several_kc |= b.kc < depth_e;
        r.several_mc |= b.mc < rows_e;
        r.several_nc |= b.nc < cols_e;
        r.special |= special(rows_e, cols_e, b);
        const Index pad = r.shapes % 3 == 0 ? 3 : 0;
        ++r.shapes;
        if (!same(rows, depth, cols, pad)) {
          ++r.differ;
          UNSCOPED_INFO("differs: " << rows << " x " << depth << " x " << cols << " (kc " << b.kc
                                    << ", mc " << b.mc << ", nc " << b.nc << ")");
        }
      }
  return r;
}

// Many shapes, none differing, and every kind of block the order depends on among them.
void check_sweep(const Sweep& r) {
  INFO(r.shapes << " shapes");
  CHECK(r.shapes > 700);
  CHECK(r.differ == 0);
  CHECK(r.several_kc);
  CHECK(r.several_mc);
  CHECK(r.several_nc);
  CHECK(r.special);
}

// Whether the AVX-512 kernels can run here (else a warning: only Eigen's products ran).
bool kernel_runs_here() {
  if (dlsim::models::avx512_available()) return true;
  WARN("this processor has no AVX-512: the kernels cannot run here (Eigen's products run)");
  return false;
}

// What Eigen's column-major product is for a shape: its depth, rows, columns and blocking.
struct EigenShape {
  Index depth, rows, cols;
  dp::Blocking blocking;
};

// x·W by dp::multiply against Eigen's expression, or with by_transpose x·Wᵀ by
// dp::multiply_by_transpose (W then cols × depth): x a block of a wider matrix (row stride
// depth + pad) when pad > 0. Returns whether the bits agree.
bool same_as_eigen(Index rows, Index depth, Index cols, Index pad, bool vector,
                   std::mt19937_64& rng, bool by_transpose = false) {
  Matrix wide(rows, depth + pad);
  fill_awkward(wide.data(), wide.size(), rng);
  const Eigen::Ref<const Matrix> x = wide.leftCols(depth);
  std::vector<double> w(std::size_t(depth * cols));
  fill_awkward(w.data(), Index(w.size()), rng);
  Matrix expected, got(3, 3);  // got: the wrong size, which multiply must set
  if (by_transpose) {
    expected.noalias() = x * Eigen::Map<const Eigen::MatrixXd>(w.data(), cols, depth).transpose();
    dp::multiply_by_transpose(x, w.data(), cols, got, vector);
  } else {
    expected.noalias() = x * Eigen::Map<const Eigen::MatrixXd>(w.data(), depth, cols);
    dp::multiply(x, w.data(), cols, got, vector);
  }
  return got.rows() == rows && got.cols() == cols &&
         std::memcmp(got.data(), expected.data(), sizeof(double) * std::size_t(got.size())) == 0;
}

// xᵀ·g by dp::multiply_transposed against Eigen's `out.noalias() = x.transpose() * g` (out
// column-major), x of rows × depth and g of rows × cols, both blocks of wider matrices when
// pad > 0.
bool transposed_same_as_eigen(Index rows, Index depth, Index cols, Index pad, bool vector,
                              std::mt19937_64& rng) {
  Matrix x_wide(rows, depth + pad), g_wide(rows, cols + pad);
  fill_awkward(x_wide.data(), x_wide.size(), rng);
  fill_awkward(g_wide.data(), g_wide.size(), rng);
  const Eigen::Ref<const Matrix> x = x_wide.leftCols(depth), g = g_wide.leftCols(cols);
  Eigen::MatrixXd expected(depth, cols);
  expected.noalias() = x.transpose() * g;
  std::vector<double> got(std::size_t(depth * cols), 12345.0);  // must be overwritten
  dp::multiply_transposed(x, g, got.data(), vector);
  return std::memcmp(got.data(), expected.data(), sizeof(double) * got.size()) == 0;
}

// Rows of a matrix handed out on demand, as a RowSource does for byte-coded data; counts
// the rows it made and notes any call of more than kSourceRows rows or out of range.
class RowsOf final : public dp::RowSource {
 public:
  explicit RowsOf(const Matrix& x) : RowSource(x.rows(), x.cols()), x_(x) {}
  void fill(Index first, Index count, double* to) const override {
    if (count < 1 || count > dp::kSourceRows || first < 0 || first + count > x_.rows())
      bad_ = true;
    else
      std::memcpy(to, x_.data() + first * x_.cols(),
                  sizeof(double) * std::size_t(count * x_.cols()));
    made_ += count;
  }
  Index made() const { return made_; }
  bool bad() const { return bad_; }

 private:
  const Matrix& x_;
  mutable Index made_ = 0;
  mutable bool bad_ = false;
};

// x·W by dp::multiply of rows made on demand against Eigen's expression. Returns whether the
// bits agree and every row was made exactly once, in calls of at most kSourceRows rows
// (the rows made whole first when not vectorized).
bool source_same_as_eigen(Index rows, Index depth, Index cols, bool vector, std::mt19937_64& rng) {
  Matrix x(rows, depth);
  fill_awkward(x.data(), x.size(), rng);
  std::vector<double> w(std::size_t(depth * cols));
  fill_awkward(w.data(), Index(w.size()), rng);
  Matrix expected, got(3, 3);
  expected.noalias() = x * Eigen::Map<const Eigen::MatrixXd>(w.data(), depth, cols);
  const RowsOf source(x);
  dp::multiply(source, w.data(), cols, got, vector);
  return !source.bad() && source.made() == rows && got.rows() == rows && got.cols() == cols &&
         std::memcmp(got.data(), expected.data(), sizeof(double) * std::size_t(got.size())) == 0;
}

}  // namespace

TEST_CASE("dense product: rows made on demand give the matrix's bits") {
  std::mt19937_64 rng(19);
  // With the kernel (where it runs), and through Eigen's product of the rows made whole.
  for (const bool vector : {true, false}) {
    if (vector && !kernel_runs_here()) continue;
    INFO((vector ? "AVX-512 kernel" : "Eigen"));
    const Sweep r = sweep(
        {2, 3, 4, 5, 7, 9, 13, 64, 101, 1024, 1027}, {1, 7, 8, 9, 17, 100, 399, 401, 785, 1500},
        {2, 3, 5, 8, 9, 10, 11, 17, 100, 128},
        [&](Index rows, Index depth, Index cols) {
          return !vector || dp::vectorized(rows, depth, cols);
        },
        [](Index rows, Index depth, Index cols) {
          return EigenShape{depth, cols, rows, dp::eigen_blocking(cols, depth, rows)};
        },
        [](Index, Index samples, const dp::Blocking& b) {
          return samples % 4 != 0 || b.nc % 4 != 0;
        },
        [&](Index rows, Index depth, Index cols, Index) {
          return source_same_as_eigen(rows, depth, cols, vector, rng);
        });
    check_sweep(r);
  }
  // One row and tiny products are Eigen's other paths: the rows made whole take them.
  for (const auto& [rows, depth, cols] :
       {std::tuple<Index, Index, Index>{1, 785, 10}, {2, 3, 4}, {5, 1, 2}, {3, 9, 1}}) {
    INFO(rows << " x " << depth << " x " << cols);
    CHECK(source_same_as_eigen(rows, depth, cols, true, rng));
  }
}

TEST_CASE("dense product: the AVX-512 kernel gives Eigen's product's bits, for W and Wᵀ") {
  if (!kernel_runs_here()) return;
  std::mt19937_64 rng(18);
  // Eigen computes outᵀ = Wᵀ·xᵀ: its rows are the outputs (cols), its columns the samples.
  const Sweep r = sweep(
      {2, 3, 4, 5, 7, 9, 13, 64, 101, 1024, 1027}, {1, 7, 8, 9, 17, 100, 399, 401, 785, 1500},
      {2, 3, 5, 8, 9, 10, 11, 17, 100, 600},
      [](Index rows, Index depth, Index cols) { return dp::vectorized(rows, depth, cols); },
      [](Index rows, Index depth, Index cols) {
        return EigenShape{depth, cols, rows, dp::eigen_blocking(cols, depth, rows)};
      },
      // samples left over after a block's multiple of 4, which take the plain order
      [](Index, Index samples, const dp::Blocking& b) { return samples % 4 != 0 || b.nc % 4 != 0; },
      // every shape both ways: W given as itself and as the transpose of its storage
      [&](Index rows, Index depth, Index cols, Index pad) {
        return same_as_eigen(rows, depth, cols, pad, true, rng) &&
               same_as_eigen(rows, depth, cols, pad, true, rng, true);
      });
  check_sweep(r);
}

TEST_CASE("dense product: the shapes Eigen computes otherwise stay Eigen's") {
  std::mt19937_64 rng(7);
  // A single sample or output (matrix-vector products), a coefficient-wise product
  // (k + samples + outputs < 20), no depth: not the kernel's, and still Eigen's bits.
  CHECK_FALSE(dp::vectorized(1, 784, 10, true));
  CHECK_FALSE(dp::vectorized(1024, 784, 1, true));
  CHECK_FALSE(dp::vectorized(4, 8, 7, true));
  CHECK_FALSE(dp::vectorized(64, 0, 10, true));
  CHECK_FALSE(dp::vectorized(1024, 784, 10, false));
  // The kernel's smallest shape, asked for explicitly: its whenever the kernel is compiled
  // (x86-64 with GCC or Clang), whatever this processor runs.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  CHECK(dp::vectorized(4, 8, 8, true));
#else
  CHECK_FALSE(dp::vectorized(4, 8, 8, true));
#endif
  CHECK(dp::vectorized(4, 8, 8) == dlsim::models::avx512_available());
  for (bool vector : {false, dlsim::models::avx512_available()}) {
    CHECK(same_as_eigen(1, 784, 10, 0, vector, rng));
    CHECK(same_as_eigen(300, 784, 1, 2, vector, rng));
    CHECK(same_as_eigen(4, 8, 7, 0, vector, rng));
    CHECK(same_as_eigen(1024, 784, 10, 1, vector, rng));
    CHECK(same_as_eigen(1, 10, 128, 0, vector, rng, true));
    CHECK(same_as_eigen(32, 10, 1, 0, vector, rng, true));
    CHECK(same_as_eigen(4, 7, 8, 0, vector, rng, true));
    CHECK(same_as_eigen(32, 10, 128, 2, vector, rng, true));
  }
  // No depth: zeros, as Eigen gives.
  Matrix x(5, 0), out;
  dp::multiply(x, nullptr, 3, out);
  CHECK(out.rows() == 5);
  CHECK(out.cols() == 3);
  CHECK(out.isZero(0));
}

TEST_CASE("dense product: the weights' gradient kernel gives Eigen's product's bits") {
  if (!kernel_runs_here()) return;
  std::mt19937_64 rng(19);
  // rows: the batch (the product's depth); depth: fan_in (its rows); cols: fan_out.
  const Sweep r = sweep(
      {1, 2, 3, 7, 8, 9, 16, 17, 32, 100, 256, 401, 1024},
      {2, 3, 5, 6, 7, 9, 10, 13, 64, 100, 130, 785, 1500}, {2, 3, 5, 8, 9, 10, 17, 100, 600},
      [](Index rows, Index depth, Index cols) {
        return dp::vectorized_transposed(rows, depth, cols);
      },
      [](Index rows, Index depth, Index cols) {
        return EigenShape{rows, depth, cols, dp::eigen_blocking(depth, rows, cols)};
      },
      // one-packet rows (2 or 3 left over after a row block's multiple of 4)
      [](Index rows_e, Index, const dp::Blocking& b) {
        return std::min(b.mc, rows_e) % 4 >= 2 || rows_e % b.mc % 4 >= 2;
      },
      [&](Index rows, Index depth, Index cols, Index pad) {
        return transposed_same_as_eigen(rows, depth, cols, pad, true, rng);
      });
  check_sweep(r);
}

TEST_CASE("dense product: gradient shapes Eigen computes otherwise stay Eigen's") {
  std::mt19937_64 rng(8);
  CHECK_FALSE(dp::vectorized_transposed(16, 1, 10, true));   // one row of the gradient
  CHECK_FALSE(dp::vectorized_transposed(16, 784, 1, true));  // one column
  CHECK_FALSE(dp::vectorized_transposed(4, 8, 7, true));     // 4 + 8 + 7 < 20
  CHECK_FALSE(dp::vectorized_transposed(0, 784, 10, true));  // no depth
  CHECK_FALSE(dp::vectorized_transposed(16, 784, 10, false));
  for (bool vector : {false, dlsim::models::avx512_available()}) {
    CHECK(transposed_same_as_eigen(16, 1, 10, 0, vector, rng));
    CHECK(transposed_same_as_eigen(16, 784, 1, 3, vector, rng));
    CHECK(transposed_same_as_eigen(4, 8, 7, 0, vector, rng));
    CHECK(transposed_same_as_eigen(16, 784, 10, 1, vector, rng));
  }
}
