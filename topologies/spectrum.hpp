// Spectral facts of the gossip matrix W (docs/design.md §9).
//
// Undirected static graphs: W is symmetric (metropolis, max-degree) or similar to
// a symmetric matrix (uniform: W = D⁻¹(A + I) with D = diag(d_i + 1), and
// S = D^½ W D^-½ = D^-½ (A + I) D^-½), so the spectrum is real: λ1 = 1 ≥ λ2 ≥ ... ≥
// λmin, and the spectral gap is 1 − max(|λ2|, |λmin|).
//   circulant kinds (ring, exponential, complete), any n: exact, from W's first column c
//     (facts.cpp): λ_k = Σ_s c_s cos(2π s k / n), evaluated term by term as
//     1 − λ_k = Σ_{s≠0} c_s · 2 sin²(π s k / n) when the column has at most 64 nonzero
//     shifts (O(n · shifts); the gap keeps its digits even at 1e-11, a ring of 10^6),
//     by the FFT of c otherwise. (The dense solver's O(n³) dominated short runs on
//     1,024 nodes, the sparse Lanczos below took seconds on a ring of 10^6.)
//   other kinds, n ≤ kDenseNodes: dense Eigen::SelfAdjointEigenSolver.
//   larger n: sparse S only (never a dense n×n matrix), with Spectra:
//     restarted Lanczos (SymEigsSolver, both ends of the spectrum: 1, λ2, λmin); or,
//     for graphs whose diameter is long (> 4 log2 n + 4: ring, torus, grid), where
//     1 − λ2 ~ 1/n² and Lanczos stalls, first
//     λ2 — shift-invert Lanczos (SymEigsShiftSolver, sparse LDLᵀ of S − σI) at
//          σ = 1 + δ, δ half of Mohar's lower bound 4 w_min / (n · diameter) on 1 − λ2,
//          asking for the two eigenvalues nearest σ (1 and λ2);
//     λmin — bisection on σ with a sparse Cholesky factorization of S − σI, which
//          exists exactly when σ < λmin, to 1e-11, when the factor stays thin
//          (nnz(L) ≤ 4n: rings); otherwise a rough Ritz value θ (Lanczos to 1e-3),
//          then shift-invert at σ = θ − ε for ε = 1e-4, 1e-3, ... until the
//          factorization exists (proving σ < λmin): the eigenvalue nearest σ is λmin.
//     Each path falls back on the other when it does not converge.
// Directed and time-varying kinds: the second-largest eigenvalue modulus (SLEM) of
// W, or of the product of one period's W_t; all such kinds here are circulant, so
// the eigenvalues are the DFT of W's first column (products multiply per
// frequency), computed with Eigen's FFT in O(n log n); lambda_min is not reported
// (complex spectrum). random-matching: W_t is a random projection with
// E[W_t] = E[W_tᵀ W_t] = ½ I + ½ (11ᵀ − I)/(n − 1), whose non-top eigenvalues all
// equal ½ − 1/(2(n − 1)); that is the mean-square contraction factor reported.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <Eigen/Sparse>

#include "topologies/mixing_weights.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::topo {

inline constexpr int kDenseNodes = 1024;

struct Spectrum {
  std::optional<double> lambda2;       // symmetric: λ2; directed/time-varying: SLEM
  std::optional<double> lambda_min;    // symmetric only
  std::optional<double> spectral_gap;  // 1 − max(|λ2|, |λmin|), or 1 − SLEM
  std::string method;                  // how it was computed
};

Spectrum symmetric_spectrum(const RoundGraph& round, WeightRule rule, std::optional<int> diameter);
/// λ2 and λmin of a symmetric circulant W (ring, exponential, complete), exactly from
/// its first column (header comment).
Spectrum symmetric_circulant_spectrum(const RoundGraph& round);
/// SLEM of the product W_{T−1} ··· W_1 W_0 of circulant rounds.
Spectrum circulant_product_spectrum(const std::vector<std::shared_ptr<const RoundGraph>>& rounds);
Spectrum random_matching_spectrum(int n);

/// W as a matrix (row i holds node i's weights): dense for tests and small n.
Eigen::MatrixXd dense_weights(const RoundGraph& round);
Eigen::SparseMatrix<double> sparse_weights(const RoundGraph& round);

}  // namespace dlsim::topo
