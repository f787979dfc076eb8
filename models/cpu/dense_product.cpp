// The dense layers' product (dense_product.hpp). Lanes are outputs: a sample's row of x is
// read along k, each x value broadcast and multiplied by eight outputs' weights at once
// (Wᵀ packed k-major, eight outputs to a vector), four samples at a time. The one-packet
// outputs' even/odd split is kept with masked adds, so that each lane gets exactly the
// adds Eigen's kernel gives that element, in its order. Compiled with -ffp-contract=off
// (CMakeLists.txt): a product and the add after it stay two roundings.
#include "models/cpu/dense_product.hpp"

#include <algorithm>
#include <vector>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define DLSIM_DENSE_AVX512 1
#define DLSIM_AVX512 __attribute__((target("avx512f")))
#endif

namespace dlsim::models::dense_product {

Blocking eigen_blocking(Index rows, Index depth, Index cols) {
  Blocking b{depth, rows, cols};
  Eigen::internal::computeProductBlockingSizes<double, double, 1>(b.kc, b.mc, b.nc, Index(1));
  return b;
}

namespace {

bool blocked_product(Index rows, Index depth, Index cols) {
  return rows >= 2 && cols >= 2 && depth >= 1 && depth + rows + cols >= 20;
}

#ifdef DLSIM_DENSE_AVX512

constexpr Index kLanes = 8;                 // outputs per vector
constexpr int kSamples = int(kSourceRows);  // samples at once
constexpr Index kPeel = 8;                  // Eigen's k unrolling in the one-packet path (its pk)

// Masks over `count` lanes (Eigen's rows of the product, in blocks of mc), a vector of
// eight per mask: the one-packet rows [in_block/4·4, in_block/2·2) of each block, which
// split even and odd k; the lanes that exist; none. Per-thread scratch, kept.
struct LaneMasks {
  std::vector<__mmask8> split, valid, none;
};

const LaneMasks& lane_masks(Index count, Index mc) {
  static thread_local LaneMasks masks;
  const std::size_t vectors = std::size_t((count + kLanes - 1) / kLanes);
  masks.split.assign(vectors, 0);
  masks.valid.assign(vectors, 0);
  masks.none.assign(vectors, 0);
  for (Index i2 = 0; i2 < count; i2 += mc) {
    const Index in_block = std::min(mc, count - i2);
    const Index first = in_block / 4 * 4, end = first + (in_block - first) / 2 * 2;
    for (Index i = i2 + first; i < i2 + end; ++i)
      masks.split[std::size_t(i / kLanes)] |= __mmask8(1u << (i % kLanes));
  }
  for (Index i = 0; i < count; ++i)
    masks.valid[std::size_t(i / kLanes)] |= __mmask8(1u << (i % kLanes));
  return masks;
}

// Per-thread scratch: Wᵀ packed k-major, `padded` values a k (zeros past cols).
std::vector<double>& packed_scratch() {
  static thread_local std::vector<double> packed;
  return packed;
}

// The outputs [v0·8, v0·8 + NV·8) of S samples over the depth block [k0, k0 + depth):
// out_row += the block's sums. `split` marks the lanes that sum even and odd k apart over
// the first `peeled` k (zero when these samples take the plain order); `valid` the lanes
// that are outputs.
template <int S, int NV>
DLSIM_AVX512 void block_sums(const double* const* x, Index k0, Index depth, Index peeled,
                             const double* packed, Index padded, Index v0, const __mmask8* split,
                             const __mmask8* valid, double* const* out_rows) {
  __m512d acc[S][NV], odd[S][NV];
  for (int s = 0; s < S; ++s)
    for (int v = 0; v < NV; ++v) acc[s][v] = odd[s][v] = _mm512_setzero_pd();
  Index t = 0;
  bool any_split = false;
  for (int v = 0; v < NV; ++v) any_split |= split[v] != 0;
  if (any_split) {
    __mmask8 plain[NV];
    for (int v = 0; v < NV; ++v) plain[v] = __mmask8(~split[v]);
    for (; t < peeled; t += 2) {
      const double* w_even = packed + (k0 + t) * padded + v0 * kLanes;
      const double* w_odd = w_even + padded;
      __m512d we[NV], wo[NV];
      for (int v = 0; v < NV; ++v) {
        we[v] = _mm512_loadu_pd(w_even + v * kLanes);
        wo[v] = _mm512_loadu_pd(w_odd + v * kLanes);
      }
      for (int s = 0; s < S; ++s) {
        const __m512d xe = _mm512_set1_pd(x[s][k0 + t]);
        const __m512d xo = _mm512_set1_pd(x[s][k0 + t + 1]);
        for (int v = 0; v < NV; ++v) {
          acc[s][v] = _mm512_add_pd(acc[s][v], _mm512_mul_pd(xe, we[v]));
          const __m512d p = _mm512_mul_pd(xo, wo[v]);
          acc[s][v] = _mm512_mask_add_pd(acc[s][v], plain[v], acc[s][v], p);
          odd[s][v] = _mm512_mask_add_pd(odd[s][v], split[v], odd[s][v], p);
        }
      }
    }
    for (int s = 0; s < S; ++s)
      for (int v = 0; v < NV; ++v)
        acc[s][v] = _mm512_mask_add_pd(acc[s][v], split[v], acc[s][v], odd[s][v]);
  }
  for (; t < depth; ++t) {
    const double* wt = packed + (k0 + t) * padded + v0 * kLanes;
    __m512d w[NV];
    for (int v = 0; v < NV; ++v) w[v] = _mm512_loadu_pd(wt + v * kLanes);
    for (int s = 0; s < S; ++s) {
      const __m512d xs = _mm512_set1_pd(x[s][k0 + t]);
      for (int v = 0; v < NV; ++v) acc[s][v] = _mm512_add_pd(acc[s][v], _mm512_mul_pd(xs, w[v]));
    }
  }
  for (int s = 0; s < S; ++s)
    for (int v = 0; v < NV; ++v) {
      double* o = out_rows[s] + (v0 + v) * kLanes;
      // Eigen's element starts at 0, and 0 + sum is the sum itself (a sum started at +0 is
      // never −0): the first depth block stores it, so nothing zeroes out beforehand.
      const __m512d total =
          k0 == 0 ? acc[s][v] : _mm512_add_pd(_mm512_maskz_loadu_pd(valid[v], o), acc[s][v]);
      _mm512_mask_storeu_pd(o, valid[v], total);
    }
}

template <int S>
DLSIM_AVX512 void samples_block(const double* const* x, Index k0, Index depth, Index peeled,
                                const double* packed, Index padded, Index vectors,
                                const __mmask8* split, const __mmask8* valid,
                                double* const* out_rows) {
  Index v = 0;
  for (; v + 2 <= vectors; v += 2)
    block_sums<S, 2>(x, k0, depth, peeled, packed, padded, v, split + v, valid + v, out_rows);
  if (v < vectors)
    block_sums<S, 1>(x, k0, depth, peeled, packed, padded, v, split + v, valid + v, out_rows);
}

// x·W with W (depth × cols) given by where its (k, j) is: w[k·k_stride + j·j_stride].
// `samples(i, s, x_rows)` points x_rows[0, s) at the rows [i, i + s) of x (s <= kSamples).
template <class Samples>
DLSIM_AVX512 void multiply_avx512(Samples&& samples, Index rows, Index depth, const double* w,
                                  Index k_stride, Index j_stride, Index cols, Matrix& out) {
  // Eigen computes outᵀ = Wᵀ·xᵀ: its rows are the outputs, its columns the samples.
  const Blocking blocking = eigen_blocking(cols, depth, rows);
  const Index vectors = (cols + kLanes - 1) / kLanes, padded = vectors * kLanes;

  // W k-major, eight outputs to a vector: packed[k·padded + j] = W(k, j).
  // A gradient's product is small (16 rows): the packing must cost little next to it, so
  // only the padding is zeroed, and W's columns are read a cache line (8 k) at a time.
  std::vector<double>& packed_vector = packed_scratch();
  packed_vector.resize(std::size_t(depth * padded));
  double* packed = packed_vector.data();
  for (Index k = 0; k < depth && padded > cols; ++k)
    std::fill(packed + k * padded + cols, packed + (k + 1) * padded, 0.0);
  if (j_stride == 1) {  // W's rows are contiguous (Wᵀ of a column-major matrix)
    for (Index k = 0; k < depth; ++k)
      std::copy(w + k * k_stride, w + k * k_stride + cols, packed + k * padded);
  } else {
    for (Index k0 = 0; k0 < depth; k0 += 8) {
      const Index k_end = std::min(k0 + 8, depth);
      for (Index j = 0; j < cols; ++j)
        for (Index k = k0; k < k_end; ++k) packed[k * padded + j] = w[k * k_stride + j * j_stride];
    }
  }

  const LaneMasks& lanes = lane_masks(cols, blocking.mc);
  const __mmask8* const split = lanes.split.data();
  const __mmask8* const valid = lanes.valid.data();
  const __mmask8* const no_split = lanes.none.data();

  out.resize(rows, cols);  // every element written by the first depth block
  for (Index j2 = 0; j2 < rows; j2 += blocking.nc) {
    const Index width = std::min(blocking.nc, rows - j2), splitting = j2 + width / 4 * 4;
    for (Index i = j2; i < j2 + width;) {
      // Samples below `splitting` take the split order, the (width mod 4) after it not.
      const Index end = i < splitting ? splitting : j2 + width;
      const int s = int(std::min<Index>(kSamples, end - i));
      const double* x_rows[kSamples];
      double* out_rows[kSamples];
      samples(i, s, x_rows);
      for (int r = 0; r < s; ++r) out_rows[r] = out.data() + (i + r) * cols;
      const __mmask8* masks = i < splitting ? split : no_split;
      for (Index k0 = 0; k0 < depth; k0 += blocking.kc) {
        const Index block = std::min(blocking.kc, depth - k0), peeled = block & ~(kPeel - 1);
        switch (s) {
          case 4:
            samples_block<4>(x_rows, k0, block, peeled, packed, padded, vectors, masks, valid,
                             out_rows);
            break;
          case 3:
            samples_block<3>(x_rows, k0, block, peeled, packed, padded, vectors, masks, valid,
                             out_rows);
            break;
          case 2:
            samples_block<2>(x_rows, k0, block, peeled, packed, padded, vectors, masks, valid,
                             out_rows);
            break;
          default:
            samples_block<1>(x_rows, k0, block, peeled, packed, padded, vectors, masks, valid,
                             out_rows);
            break;
        }
      }
      i += s;
    }
  }
}

// xᵀ·g, lanes are x's columns (the product's rows), read straight from x's rows: the
// features [f0, f0 + V·8) of the columns [j0, j0 + NC) of out over the depth block
// [k0, k0 + depth). split[v·NC + c]: the lanes of vector v that split even and odd k in
// column c; valid[v]: the lanes that are features.
template <int V, int NC>
DLSIM_AVX512 void column_sums(const double* x, Index x_stride, const double* g, Index g_stride,
                              Index f0, Index j0, Index k0, Index depth, Index peeled,
                              const __mmask8* split, const __mmask8* valid, double* out,
                              Index out_stride) {
  __m512d acc[V][NC], odd[V][NC];
  for (int v = 0; v < V; ++v)
    for (int c = 0; c < NC; ++c) acc[v][c] = odd[v][c] = _mm512_setzero_pd();
  Index t = 0;
  bool any_split = false;
  for (int i = 0; i < V * NC; ++i) any_split |= split[i] != 0;
  if (any_split) {
    for (; t < peeled; t += 2) {
      const double* x_even = x + (k0 + t) * x_stride + f0;
      const double* g_even = g + (k0 + t) * g_stride + j0;
      __m512d xe[V], xo[V];
      for (int v = 0; v < V; ++v) {
        xe[v] = _mm512_maskz_loadu_pd(valid[v], x_even + v * kLanes);
        xo[v] = _mm512_maskz_loadu_pd(valid[v], x_even + x_stride + v * kLanes);
      }
      for (int c = 0; c < NC; ++c) {
        const __m512d ge = _mm512_set1_pd(g_even[c]);
        const __m512d go = _mm512_set1_pd(g_even[g_stride + c]);
        for (int v = 0; v < V; ++v) {
          const __mmask8 m = split[v * NC + c];
          acc[v][c] = _mm512_add_pd(acc[v][c], _mm512_mul_pd(xe[v], ge));
          const __m512d p = _mm512_mul_pd(xo[v], go);
          acc[v][c] = _mm512_mask_add_pd(acc[v][c], __mmask8(~m), acc[v][c], p);
          odd[v][c] = _mm512_mask_add_pd(odd[v][c], m, odd[v][c], p);
        }
      }
    }
    for (int v = 0; v < V; ++v)
      for (int c = 0; c < NC; ++c)
        acc[v][c] = _mm512_mask_add_pd(acc[v][c], split[v * NC + c], acc[v][c], odd[v][c]);
  }
  for (; t < depth; ++t) {
    const double* xt = x + (k0 + t) * x_stride + f0;
    const double* gt = g + (k0 + t) * g_stride + j0;
    __m512d xv[V];
    for (int v = 0; v < V; ++v) xv[v] = _mm512_maskz_loadu_pd(valid[v], xt + v * kLanes);
    for (int c = 0; c < NC; ++c) {
      const __m512d gc = _mm512_set1_pd(gt[c]);
      for (int v = 0; v < V; ++v) acc[v][c] = _mm512_add_pd(acc[v][c], _mm512_mul_pd(xv[v], gc));
    }
  }
  for (int c = 0; c < NC; ++c)
    for (int v = 0; v < V; ++v) {
      double* o = out + (j0 + c) * out_stride + f0 + v * kLanes;
      const __m512d total =  // as in block_sums
          k0 == 0 ? acc[v][c] : _mm512_add_pd(_mm512_maskz_loadu_pd(valid[v], o), acc[v][c]);
      _mm512_mask_storeu_pd(o, valid[v], total);
    }
}

template <int V>
DLSIM_AVX512 void columns_of(const double* x, Index x_stride, const double* g, Index g_stride,
                             Index f0, Index j_begin, Index j_end, Index k0, Index depth,
                             Index peeled, const __mmask8* lane_split, Index split_end,
                             const __mmask8* valid, double* out, Index out_stride) {
  constexpr int kColumns = 4;
  __mmask8 split[V * kColumns];
  for (Index j0 = j_begin; j0 < j_end; j0 += kColumns) {
    const int nc = int(std::min<Index>(kColumns, j_end - j0));
    // Columns below split_end split the split lanes; the block's last (width mod 4) not.
    for (int v = 0; v < V; ++v)
      for (int c = 0; c < nc; ++c) split[v * nc + c] = j0 + c < split_end ? lane_split[v] : 0;
    switch (nc) {
      case 4:
        column_sums<V, 4>(x, x_stride, g, g_stride, f0, j0, k0, depth, peeled, split, valid, out,
                          out_stride);
        break;
      case 3:
        column_sums<V, 3>(x, x_stride, g, g_stride, f0, j0, k0, depth, peeled, split, valid, out,
                          out_stride);
        break;
      case 2:
        column_sums<V, 2>(x, x_stride, g, g_stride, f0, j0, k0, depth, peeled, split, valid, out,
                          out_stride);
        break;
      default:
        column_sums<V, 1>(x, x_stride, g, g_stride, f0, j0, k0, depth, peeled, split, valid, out,
                          out_stride);
        break;
    }
  }
}

DLSIM_AVX512 void multiply_transposed_avx512(const Eigen::Ref<const Matrix>& x,
                                             const Eigen::Ref<const Matrix>& g, double* out) {
  const Index depth = x.rows(), rows = x.cols(), cols = g.cols();
  const auto [kc, mc, nc] = eigen_blocking(rows, depth, cols);  // no transposition here
  const Index vectors = (rows + kLanes - 1) / kLanes;

  const LaneMasks& lanes = lane_masks(rows, mc);
  const __mmask8* const split = lanes.split.data();
  const __mmask8* const valid = lanes.valid.data();

  for (Index j2 = 0; j2 < cols; j2 += nc) {
    const Index width = std::min(nc, cols - j2), split_end = j2 + width / 4 * 4;
    for (Index k0 = 0; k0 < depth; k0 += kc) {
      const Index block = std::min(kc, depth - k0), peeled = block & ~(kPeel - 1);
      Index v = 0;
      for (; v + 2 <= vectors; v += 2)
        columns_of<2>(x.data(), x.outerStride(), g.data(), g.outerStride(), v * kLanes, j2,
                      j2 + width, k0, block, peeled, split + v, split_end, valid + v, out, rows);
      if (v < vectors)
        columns_of<1>(x.data(), x.outerStride(), g.data(), g.outerStride(), v * kLanes, j2,
                      j2 + width, k0, block, peeled, split + v, split_end, valid + v, out, rows);
    }
  }
}

// The samples of a row-major matrix, read in place.
auto rows_of(const Eigen::Ref<const Matrix>& x) {
  return [&x](Index i, int s, const double** x_rows) {
    for (int r = 0; r < s; ++r) x_rows[r] = x.data() + (i + r) * x.outerStride();
  };
}

#endif  // DLSIM_DENSE_AVX512

}  // namespace

bool vectorized(Index rows, Index depth, Index cols, bool vector) {
#ifdef DLSIM_DENSE_AVX512
  return vector && blocked_product(rows, depth, cols);
#else
  (void)vector;
  (void)rows, (void)depth, (void)cols;
  return false;
#endif
}

bool vectorized_transposed(Index rows, Index depth, Index cols, bool vector) {
  // Eigen's product xᵀ·g has x.cols() × g.cols() elements and depth x.rows().
  return vectorized(depth, rows, cols, vector);
}

void multiply_transposed(const Eigen::Ref<const Matrix>& x, const Eigen::Ref<const Matrix>& g,
                         double* out, bool vector) {
#ifdef DLSIM_DENSE_AVX512
  if (vectorized_transposed(x.rows(), x.cols(), g.cols(), vector)) {
    multiply_transposed_avx512(x, g, out);
    return;
  }
#endif
  Eigen::Map<Eigen::MatrixXd>(out, x.cols(), g.cols()).noalias() = x.transpose() * g;
}

void multiply(const Eigen::Ref<const Matrix>& x, const double* w, Index cols, Matrix& out,
              bool vector) {
#ifdef DLSIM_DENSE_AVX512
  if (vectorized(x.rows(), x.cols(), cols, vector)) {
    multiply_avx512(rows_of(x), x.rows(), x.cols(), w, 1, x.cols(), cols, out);
    return;
  }
#endif
  out.noalias() = x * Eigen::Map<const Eigen::MatrixXd>(w, x.cols(), cols);
}

void multiply(const RowSource& x, const double* w, Index cols, Matrix& out, bool vector) {
  const Index rows = x.rows(), depth = x.depth();
#ifdef DLSIM_DENSE_AVX512
  if (vectorized(rows, depth, cols, vector)) {
    // Four rows at a time into a per-thread buffer (25 KB at depth 784: in L1).
    static thread_local std::vector<double> buffer;
    buffer.resize(std::size_t(kSamples * depth));
    const auto samples = [&](Index i, int s, const double** x_rows) {
      x.fill(i, s, buffer.data());
      for (int r = 0; r < s; ++r) x_rows[r] = buffer.data() + r * depth;
    };
    multiply_avx512(samples, rows, depth, w, 1, depth, cols, out);
    return;
  }
#endif
  // The rows made whole, in a per-thread block, and multiplied as a matrix of them is.
  static thread_local Matrix whole;
  whole.resize(rows, depth);
  for (Index i = 0; i < rows; i += kSourceRows)
    x.fill(i, std::min<Index>(kSourceRows, rows - i), whole.data() + i * depth);
  multiply(whole, w, cols, out, vector);
}

void multiply_by_transpose(const Eigen::Ref<const Matrix>& x, const double* w, Index cols,
                           Matrix& out, bool vector) {
#ifdef DLSIM_DENSE_AVX512
  if (vectorized(x.rows(), x.cols(), cols, vector)) {
    // Wᵀ(k, j) = W(j, k) = w[j + k·cols]
    multiply_avx512(rows_of(x), x.rows(), x.cols(), w, cols, 1, cols, out);
    return;
  }
#endif
  out.noalias() = x * Eigen::Map<const Eigen::MatrixXd>(w, cols, x.cols()).transpose();
}

}  // namespace dlsim::models::dense_product
