// The dense layers' products (DenseClassifier): out = x·W (x a block of samples or a batch,
// row-major; W a layer's weights, fan_in × fan_out, column-major), G·Wᵀ and the weights'
// gradient xᵀ·G, eight lanes at a time with AVX-512 where the processor has it, with the
// bits of Eigen's own products in this build.
//
// The build is x86-64 baseline, so Eigen's product runs its SSE2 GEMM kernel, two doubles
// at a time (39 % of a one-core softmax run's samples, case (b) in bench/e2e.py). Its
// summation order is not a plain loop, and the kernel here keeps it exactly. For a
// row-major out, Eigen computes outᵀ = Wᵀ·xᵀ, whose "rows" are the outputs and whose
// "columns" are the samples, blocked as computeProductBlockingSizes gives (kc, mc, nc):
//   - each element sums its products in k order within a depth block of kc, starting
//     from 0, and adds that sum to the element (which starts at 0) after each block;
//   - in each block of mc outputs of which `rows` are left, the two outputs at
//     [rows/4·4, rows/2·2) (the kernel's one-packet path) sum even k and odd k apart over
//     the first (depth & ~7) k of a depth block, then add the odd sum to the even one,
//     then go on in k order; except for the last (columns mod 4) samples of each block of
//     nc samples, which take the plain order;
//   - a single sample or a single output is a matrix-vector product, and k + samples +
//     outputs < 20 a coefficient-wise one: both other paths, left to Eigen here.
// The weights' gradient xᵀ·G (x: the batch or a hidden layer, b × fan_in; G: b × fan_out,
// both row-major; the gradient column-major) follows the same rules on Eigen's own
// column-major product: "rows" are x's columns (lanes here), "columns" are G's, blocked
// as computeProductBlockingSizes gives for that shape.
// tests/dense_product_test.cpp checks the kernel against Eigen bit for bit over many shapes.
#pragma once

#include "models/cpu/instruction_set.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::models::dense_product {

/// The blocking Eigen's column-major product of `rows` × `cols` elements and depth `depth`
/// uses in this build (computeProductBlockingSizes, one thread): depth blocks of kc, row
/// blocks of mc, column blocks of nc.
struct Blocking {
  Index kc, mc, nc;
};
Blocking eigen_blocking(Index rows, Index depth, Index cols);

/// Whether multiply() takes the AVX-512 kernel for x of `rows` × `depth` and W of `depth`
/// × `cols`: the processor has AVX-512 and Eigen computes that shape by its blocked
/// product (the order above). Otherwise multiply() runs Eigen's expression itself.
bool vectorized(Index rows, Index depth, Index cols, bool vector = avx512_available());

/// out ← x·W, as Eigen's `out.noalias() = x * W` gives it (the same bits). W is `cols`
/// columns of x.cols() values each, column-major at w. out is resized to x.rows() × cols.
void multiply(const Eigen::Ref<const Matrix>& x, const double* w, Index cols, Matrix& out,
              bool vector = avx512_available());

/// RowSource::fill makes at most this many rows a call: the kernel's samples at once.
constexpr Index kSourceRows = 4;

/// Rows of x made on demand, for multiply(): fill(first, count, to) writes the rows [first,
/// first + count) of x, depth() doubles each, one after another at `to` (count <=
/// kSourceRows). A
/// block of byte-coded rows (FeatureMatrix) is so widened four rows at a time inside the
/// product, in the core's L1 cache, instead of whole into a block of doubles (6.4 MB for
/// an evaluation's 1,024 rows of 784) written out and read back.
class RowSource {
 public:
  RowSource(Index rows, Index depth) : rows_(rows), depth_(depth) {}
  Index rows() const { return rows_; }
  Index depth() const { return depth_; }
  virtual void fill(Index first, Index count, double* to) const = 0;

 protected:
  ~RowSource() = default;

 private:
  Index rows_, depth_;
};

/// out ← x·W for the rows `x` makes: the bits multiply() gives for the same values.
void multiply(const RowSource& x, const double* w, Index cols, Matrix& out,
              bool vector = avx512_available());

/// out ← x·Wᵀ, as Eigen's `out.noalias() = x * W.transpose()` gives it (the same bits), W a
/// column-major `cols` × x.cols() matrix at w (the layer below's G: G·Wᵀ). Takes the
/// AVX-512 kernel when vectorized(x.rows(), x.cols(), cols).
void multiply_by_transpose(const Eigen::Ref<const Matrix>& x, const double* w, Index cols,
                           Matrix& out, bool vector = avx512_available());

/// Whether multiply_transposed() takes the AVX-512 kernel for x of `rows` × `depth` and g
/// of `rows` × `cols` (the product's depth is `rows`).
bool vectorized_transposed(Index rows, Index depth, Index cols, bool vector = avx512_available());

/// out ← xᵀ·g, as Eigen's `out.noalias() = x.transpose() * g` gives it (the same bits), out
/// a column-major x.cols() × g.cols() matrix at `out` (contiguous columns).
void multiply_transposed(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& g,
                         double* out, bool vector = avx512_available());

}  // namespace dlsim::models::dense_product
