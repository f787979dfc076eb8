#include "topologies/spectrum.hpp"

#include <algorithm>
#include <cmath>
#include <complex>
#include <limits>

#include <Spectra/MatOp/SparseSymMatProd.h>
#include <Spectra/SymEigsShiftSolver.h>
#include <Spectra/SymEigsSolver.h>
#include <unsupported/Eigen/FFT>

namespace dlsim::topo {

namespace {

using SparseMatrix = Eigen::SparseMatrix<double>;
using Eigen::VectorXd;

// y = (S − σI)⁻¹ x for Spectra's shift-invert solvers, by a sparse factorization of
// S − σI: LDLᵀ (definite for shifts above the spectrum) or Cholesky (exists exactly
// when σ < λmin, so set_shift throws otherwise — which the λmin search relies on).
template <class Factorization>
class ShiftSolve {
 public:
  using Scalar = double;
  explicit ShiftSolve(const SparseMatrix& s) : s_(s) {}
  Eigen::Index rows() const { return s_.rows(); }
  Eigen::Index cols() const { return s_.cols(); }
  void set_shift(double sigma) {
    SparseMatrix identity(rows(), cols());
    identity.setIdentity();
    solver_.compute(SparseMatrix(s_ - sigma * identity));
    if (solver_.info() != Eigen::Success) throw std::runtime_error("factorization failed");
  }
  void perform_op(const double* x_in, double* y_out) const {
    Eigen::Map<const VectorXd> x(x_in, rows());
    Eigen::Map<VectorXd> y(y_out, rows());
    y = solver_.solve(x);
  }

 private:
  const SparseMatrix& s_;
  Factorization solver_;
};
using LdltShiftSolve = ShiftSolve<Eigen::SimplicialLDLT<SparseMatrix>>;
using CholeskyShiftSolve = ShiftSolve<Eigen::SimplicialLLT<SparseMatrix>>;

struct Symmetrized {
  SparseMatrix s;  // S = D^½ W D^-½
};

// The symmetrizing scale: √(d_i + 1) for uniform weights, 1 for symmetric rules.
VectorXd symmetrizer(const RoundGraph& r, WeightRule rule) {
  VectorXd scale = VectorXd::Ones(r.out.nodes());
  if (rule == WeightRule::uniform) {
    for (int i = 0; i < r.out.nodes(); ++i) scale[i] = std::sqrt(r.out.out_degree(i) + 1.0);
  }
  return scale;
}

Symmetrized symmetrize(const RoundGraph& r, WeightRule rule) {
  const VectorXd scale = symmetrizer(r, rule);
  Symmetrized out;
  out.s = scale.asDiagonal() * sparse_weights(r) * scale.cwiseInverse().asDiagonal();
  return out;
}

Spectrum from_eigenvalues(double lambda2, double lambda_min, std::string method) {
  Spectrum sp;
  sp.lambda2 = lambda2;
  sp.lambda_min = lambda_min;
  sp.spectral_gap = 1.0 - std::max(std::abs(lambda2), std::abs(lambda_min));
  sp.method = std::move(method);
  return sp;
}

constexpr double kTolerance = 1e-10;
// Circulant W with at most this many off-diagonal entries per column are evaluated
// term by term (symmetric_circulant_spectrum), others with the FFT.
constexpr std::size_t kDirectShifts = 64;
constexpr double kLanczosTolerance = 1e-8;
constexpr double kBisectionTolerance = 1e-11;

// λ2 and λmin in one restarted Lanczos run: the three eigenvalues at both ends of
// the spectrum are 1 (known), λ2 and λmin.
std::optional<std::pair<double, double>> lanczos_both_ends(const Symmetrized& m) {
  Spectra::SparseSymMatProd<double> op(m.s);
  const Eigen::Index n = m.s.rows();
  Spectra::SymEigsSolver<Spectra::SparseSymMatProd<double>> solver(op, 3,
                                                                   std::min<Eigen::Index>(n, 20));
  solver.init();
  if (solver.compute(Spectra::SortRule::BothEnds, 300, kLanczosTolerance) < 3) return std::nullopt;
  VectorXd values = solver.eigenvalues();
  std::sort(values.data(), values.data() + values.size());  // λmin, λ2, 1
  return std::pair{values[1], values[0]};
}

// Mohar: 1 − λ2 ≥ 4 w_min / (n · diameter) for the weighted Laplacian I − S.
double gap_lower_bound(const Symmetrized& m, std::optional<int> diameter) {
  double w_min = 1.0;
  for (int k = 0; k < m.s.outerSize(); ++k) {
    for (SparseMatrix::InnerIterator it(m.s, k); it; ++it) {
      if (it.row() != it.col() && it.value() > 0) w_min = std::min(w_min, it.value());
    }
  }
  const double n = double(m.s.rows());
  return 4.0 * w_min / (n * double(diameter.value_or(int(m.s.rows()))));
}

std::optional<double> shift_invert_lambda2(const Symmetrized& m, std::optional<int> diameter) {
  try {
    const double sigma = 1.0 + 0.5 * gap_lower_bound(m, diameter);
    LdltShiftSolve op(m.s);
    const Eigen::Index n = m.s.rows();
    Spectra::SymEigsShiftSolver<LdltShiftSolve> solver(op, 2, std::min<Eigen::Index>(n, 20), sigma);
    solver.init();
    if (solver.compute(Spectra::SortRule::LargestMagn, 200, kTolerance) < 2) return std::nullopt;
    VectorXd values = solver.eigenvalues();  // the two nearest σ: 1 and λ2
    std::sort(values.data(), values.data() + values.size());
    return values[0];
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

// λmin: a rough Ritz value θ ≥ λmin from a short Lanczos run, then shift-invert at
// σ = θ − ε for ε = 1e-4, 1e-3, ...: the first σ whose Cholesky factorization exists
// lies below λmin, so the eigenvalue nearest σ is λmin, and it is well separated in
// the inverted spectrum because σ is close.
std::optional<double> shift_invert_lambda_min(const Symmetrized& m) {
  const Eigen::Index n = m.s.rows();
  SparseMatrix identity(n, n);
  identity.setIdentity();
  Eigen::SimplicialLLT<SparseMatrix> cholesky;
  cholesky.analyzePattern(SparseMatrix(m.s - identity));
  const auto below_spectrum = [&](double sigma) {
    cholesky.factorize(SparseMatrix(m.s - sigma * identity));
    return cholesky.info() == Eigen::Success;
  };
  // Bracket: Gershgorin below, the smallest diagonal entry (a Rayleigh quotient) above.
  double lo = 1.0, hi = 1.0;
  for (int k = 0; k < m.s.outerSize(); ++k) {
    double diagonal = 0, off = 0;
    for (SparseMatrix::InnerIterator it(m.s, k); it; ++it) {
      if (it.row() == it.col()) {
        diagonal += it.value();
      } else {
        off += std::abs(it.value());
      }
    }
    lo = std::min(lo, diagonal - off);
    hi = std::min(hi, diagonal);
  }
  lo -= 1e-9;
  if (!below_spectrum(lo)) return std::nullopt;
  const auto bisect = [&](double low, double high) {
    while (high - low > kBisectionTolerance) {
      const double mid = 0.5 * (low + high);
      (below_spectrum(mid) ? low : high) = mid;
    }
    return 0.5 * (low + high);
  };
  // Thin graphs (rings, paths): factorizations cost O(n), bisect.
  if (cholesky.matrixL().nestedExpression().nonZeros() <= 4 * n) return bisect(lo, hi);

  double theta = hi;
  {
    Spectra::SparseSymMatProd<double> op(m.s);
    Spectra::SymEigsSolver<Spectra::SparseSymMatProd<double>> rough(op, 1,
                                                                    std::min<Eigen::Index>(n, 20));
    rough.init();
    if (rough.compute(Spectra::SortRule::SmallestAlge, 300, 1e-3) == 1) {
      theta = std::min(theta, rough.eigenvalues()[0]);
    }
  }
  for (double eps = 1e-4;; eps *= 10) {
    const double sigma = std::max(theta - eps, lo);  // lo is below λmin
    try {
      CholeskyShiftSolve op(m.s);
      Spectra::SymEigsShiftSolver<CholeskyShiftSolve> solver(op, 1, std::min<Eigen::Index>(n, 20),
                                                             sigma);
      solver.init();
      const auto nconv = solver.compute(Spectra::SortRule::LargestMagn, 100, kTolerance);
      if (nconv == 1) {
        return solver.eigenvalues()[0];
      }
      return bisect(sigma, theta + 1e-12);
    } catch (const std::runtime_error&) {
      if (sigma == lo) return std::nullopt;  // cannot happen: lo passed the same test
    }
  }
}

}  // namespace

Eigen::SparseMatrix<double> sparse_weights(const RoundGraph& r) {
  const int n = r.out.nodes();
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(r.in.targets.size() + std::size_t(n));
  for (int i = 0; i < n; ++i) {
    entries.emplace_back(i, i, r.weights.self[i]);
    for (std::int64_t e = r.in.offsets[i]; e < r.in.offsets[i + 1]; ++e) {
      entries.emplace_back(i, r.in.targets[e], r.weights.in[e]);
    }
  }
  SparseMatrix w(n, n);
  w.setFromTriplets(entries.begin(), entries.end());
  return w;
}

Eigen::MatrixXd dense_weights(const RoundGraph& r) {
  return Eigen::MatrixXd(sparse_weights(r));
}

Spectrum symmetric_spectrum(const RoundGraph& r, WeightRule rule, std::optional<int> diameter) {
  const int n = r.out.nodes();
  const Symmetrized m = symmetrize(r, rule);
  if (n <= kDenseNodes) {
    const Eigen::MatrixXd dense(m.s);
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(dense, Eigen::EigenvaluesOnly);
    const VectorXd& values = solver.eigenvalues();  // ascending
    return from_eigenvalues(n >= 2 ? values[n - 2] : 0.0, values[0], "dense");
  }
  const double log2n = std::log2(double(n));
  const bool long_diameter = diameter && *diameter > 4 * log2n + 4;
  std::optional<double> lambda2, lambda_min;
  std::string method;
  if (long_diameter) {
    lambda2 = shift_invert_lambda2(m, diameter);
    lambda_min = shift_invert_lambda_min(m);
    method = "shift-invert Lanczos (Spectra, sparse)";
  }
  if (!lambda2 || !lambda_min) {
    if (const auto both = lanczos_both_ends(m)) {
      lambda2 = both->first;
      lambda_min = both->second;
      method = "Lanczos (Spectra, sparse)";
    }
  }
  if (!long_diameter && (!lambda2 || !lambda_min)) {
    lambda2 = shift_invert_lambda2(m, diameter);
    lambda_min = shift_invert_lambda_min(m);
    method = "shift-invert Lanczos (Spectra, sparse)";
  }
  if (!lambda2 || !lambda_min) {
    Spectrum sp;
    sp.method = "not computed: the iterative eigensolvers did not converge";
    return sp;
  }
  return from_eigenvalues(*lambda2, *lambda_min, method);
}

Spectrum symmetric_circulant_spectrum(const RoundGraph& r) {
  const int n = r.out.nodes();
  std::vector<double> column(std::size_t(n), 0.0);  // c_i = W_{i,0}
  column[0] = r.weights.self[0];
  std::vector<int> shifts;  // the i ≠ 0 with c_i ≠ 0
  for (int i : r.out.out(0)) {
    const auto in = r.in.out(i);
    const auto at = std::lower_bound(in.begin(), in.end(), 0) - in.begin();
    column[i] += r.weights.in[r.in.offsets[i] + at];
    shifts.push_back(i);
  }
  if (shifts.size() <= kDirectShifts) {
    // λ_k = Σ_s c_s cos(2π s k / n), and Σ_s c_s = 1 (W is doubly stochastic), so
    // 1 − λ_k = Σ_{s≠0} c_s · 2 sin²(π s k / n): no cancellation near λ = 1, so the gap
    // of a ring of 10^6 (about 1e-11) keeps its digits. λ_k = λ_{n−k}: k ≤ n/2 suffice.
    // O(n · shifts), where the FFT needs a fast length (a prime n makes it quadratic).
    const double pi = std::acos(-1.0);
    double gap2 = std::numeric_limits<double>::infinity(), gap_max = 0;
    for (int k = 1; k <= n / 2; ++k) {
      double gap = 0;
      for (int sft : shifts) {
        // sin²(π m / n) = sin²(π (n − m) / n): with m = s k mod n folded into [0, n/2]
        // the argument stays in [0, π/2], where it is exact to rounding (near π,
        // π − x would lose the digits of a small x).
        std::int64_t m = std::int64_t(sft) * k % n;
        if (2 * m > n) m = n - m;
        const double sine = std::sin(pi * double(m) / n);
        gap += column[sft] * 2 * sine * sine;
      }
      gap2 = std::min(gap2, gap);
      gap_max = std::max(gap_max, gap);
    }
    Spectrum sp = from_eigenvalues(1 - gap2, 1 - gap_max,
                                   "closed form of the symmetric circulant W (sum over shifts)");
    if (1 - gap2 >= std::abs(1 - gap_max)) sp.spectral_gap = gap2;  // without the rounding of λ2
    return sp;
  }
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> eigenvalues;
  fft.fwd(eigenvalues, column);
  double lambda2 = -std::numeric_limits<double>::infinity(), lambda_min = eigenvalues[0].real();
  for (int k = 1; k < n; ++k) {
    lambda2 = std::max(lambda2, eigenvalues[k].real());
    lambda_min = std::min(lambda_min, eigenvalues[k].real());
  }
  return from_eigenvalues(lambda2, lambda_min, "FFT of the symmetric circulant W");
}

Spectrum circulant_product_spectrum(const std::vector<std::shared_ptr<const RoundGraph>>& rounds) {
  const int n = rounds.front()->out.nodes();
  Eigen::FFT<double> fft;
  std::vector<std::complex<double>> product(std::size_t(n), 1.0);
  for (const auto& r : rounds) {
    // First column of the circulant W: c_i = W_{i,0}.
    std::vector<double> column(std::size_t(n), 0.0);
    column[0] = r->weights.self[0];
    for (int i : r->out.out(0)) {
      const auto in = r->in.out(i);
      const auto at = std::lower_bound(in.begin(), in.end(), 0) - in.begin();
      column[i] += r->weights.in[r->in.offsets[i] + at];
    }
    std::vector<std::complex<double>> eigenvalues;
    fft.fwd(eigenvalues, column);
    for (int k = 0; k < n; ++k) product[k] *= eigenvalues[k];
  }
  double slem = 0;
  for (int k = 1; k < n; ++k) slem = std::max(slem, std::abs(product[k]));
  Spectrum sp;
  sp.lambda2 = slem;
  sp.spectral_gap = 1.0 - slem;
  sp.method = rounds.size() > 1 ? "FFT of the circulant rounds, product over one period"
                                : "FFT of the circulant W";
  return sp;
}

Spectrum random_matching_spectrum(int n) {
  const double lambda = 0.5 - 0.5 / (n - 1);
  return from_eigenvalues(lambda, lambda, "closed form of E[W] = E[W^T W]");
}

}  // namespace dlsim::topo
