// Compressed push-sum: choco-sgp and adag-sgp (docs/algorithms.md §3), CHOCO's public copies
// applied to the push-sum numerators AND weights, for directed and time-varying graphs.
// This file is the math of one node (no time, no network); compressed_push_sum_worker.cpp
// runs it as a process.
//
// Push-sum. P is column-stochastic (P_ij = the share sender j gives to i, Σ_i P_ij = 1;
// topologies/mixing_weights.hpp). Pushing (x_j, w_j) with P conserves Σ_i x_i and Σ_i w_i,
// so z_i = x_i / w_i converges to the true average (Kempe et al. 2003; sgp_node.hpp).
//
// Compression (choco-sgp; Taheri et al. 2020's quantized push-sum with CHOCO's consensus
// step). Sender j keeps a public copy x̂_j (and ŵ_j) that every receiver holds too: both
// add the same decoded message q_j = C(x_j − x̂_j). The consensus step mixes copies:
//   x_i ← x_i + γ (Σ_{j∈in(i)} P_ij x̂_j − (1 − P_ii) x̂_i)   (= x_i + γ(Σ_j P_ij x̂_j − x̂_i))
//   w_i ← w_i + γ (Σ_{j∈in(i)} P_ij ŵ_j − (1 − P_ii) ŵ_i).
// Mass. Summed over i, copy x̂_j enters with γ Σ_{i≠j} P_ij − γ(1 − P_jj) = 0, so Σ_i x_i
// and Σ_i w_i are conserved exactly (up to double rounding) whatever the compression
// error; with exact copies (x̂ = x) the step is push-sum with M = I + γ(P − I), column-
// stochastic and nonnegative for γ ≤ 1, so the weights stay positive. The weight is one
// scalar, sent exactly (fp32 difference, 32 bits per message).
//
// Adaptive steps (adag-sgp). AdaGossip scales a RECEIVER's gossip error by its own γ_i:
// row scaling I + Γ(P − I) is not column-stochastic, Σ_i x_i drifts and z converges to a
// weighted average, not the true one (2 nodes, P = 1/2, γ = (1, 1/2): limit (x_1 + 2x_2)/3).
// Conservation needs the SENDER's step: j gives away γ_j ⊙ x̂_j, so per coordinate k
//   M_k = I + (P − I) diag(γ_1k, ..., γ_nk),   column j sums to 1 − γ_jk + γ_jk = 1:
// every coordinate has its own column-stochastic matrix. For x_ik / w_ik to remain a push-
// sum ratio the weight of coordinate k must go through the same M_k, hence a per-
// coordinate weight vector w_i ∈ R^d mixed with the same γ_j as its coordinate, public
// copies ŵ_j compressed like the numerators (a second d-vector per message, its own
// compressor stream), and the de-biased model z_i = x_i ⊘ w_i (elementwise).
//
// The step. Receivers must know γ_j without extra bits, so it is computed from what they
// see, j's decoded numerator messages q_j (identical at j and at every receiver):
//   v_j ← β v_j + (1 − β) q_j ⊙ q_j;   v̂_j = v_j / (1 − β^m)   (after m messages)
//   ρ_j = √(mean_k v̂_jk)            (the RMS message size of the stream)
//   γ_jk = min(γ · clamp((ρ_j + ε) / (√v̂_jk + ε), 1/c, 1), 1),   c = algorithm.step_band (4).
// This is AdaGossip's γ/√v̂ with γ replaced by the scale-free γ ρ_j and banded to
// [γ/c, γ]: coordinates whose messages are larger than the stream's typical size take a
// smaller step (down to γ/c), the others take γ, the same consensus_step as choco-sgp
// (tune it the same way). Why the band, from the failures of AdaGossip's raw step here:
//  - γ/√v̂ is not scale-free: on Fashion-MNIST softmax (top-k 90 %, γ 0.3) the messages'
//    RMS is ~3e-3 and the raw step sat at its clamp 1 on every coordinate, while CHOCO's
//    compressed gossip is unstable above a compressor-dependent step (16-node directed
//    exponential, top-k 90 %: a constant γ = 0.3 diverges on 30-coordinate vectors and
//    γ = 0.4 on Fashion-MNIST). Numerators and weights diverged alike. The upper end γ
//    keeps every step at most the step choco-sgp is stable with (measured there: mean
//    step 0.28 of γ = 0.3); damping the coordinates with large messages made adag-sgp
//    stable up to γ = 0.45 on that Fashion-MNIST run, choco-sgp up to 0.35.
//  - Heterogeneous steps move the weights. For frozen steps, M_k's fixed point is
//    u_k ∝ diag(γ_·k)⁻¹ π (π the Perron vector of P: (P − I) Γ u = 0 ⇔ Γ u ∝ π), so mass
//    and weight pile up where γ is small; with γ_jk → 0 (AdaGossip's lower end) weights
//    collapse at the other nodes and x/w blows up. With γ_jk ∈ [γ/c, γ] the fixed-point
//    weights w_ik = n (π_i/γ_ik) / Σ_l (π_l/γ_lk) stay within a factor c of plain push-
//    sum's n π_i (doubly stochastic P: w ∈ [1/c, c]).
// Positivity: γ_jk ≤ 1 makes M_k nonnegative, so with exact copies the weights stay
// positive; the compressed copies add CHOCO's copy error, which vanishes as the copies
// converge (the tests check the weights stay in [1/c, c]). Weight copies start at the
// initial weight, ŵ_j = w_j⁰ = 1, which every node knows, so the first weight message is
// zero (with equal steps on a doubly stochastic P the weights never move at all).
// With γ_jk = γ for all j, k this is choco-sgp except for the weight's shape. The limit:
// at a fixed point of the consensus step (copies exact, steps settled) x_i and w_i are
// both proportional to π_i/γ_ik with the conserved sums Σx, Σw = n, so z_i = Σ_i x_i / n
// exactly, whatever the steps.
//
// Copies per stream. On a static graph j broadcasts one message (one copy x̂_j, stream 0);
// on a time-varying graph every edge j → i has its own copy x̂_{j→i} (stream i + 1 at j,
// created at the first meeting, kept across absences), and node i's step is
//   x_i ← x_i + Σ_{j∈in_t(i)} P^t_ij γ_{j→i} ⊙ x̂_{j→i} − Σ_{l∈out_t(i)} P^t_li γ_{i→l} ⊙ x̂_{i→l},
// which is the static form when one copy serves every out-neighbour (Σ_l P_li = 1 − P_ii).
// Mass is conserved edge by edge: what i adds from x̂_{j→i} is what j subtracts.
//
// @inproceedings{taheri2020quantized,
//   title={Quantized Decentralized Stochastic Learning over Directed Graphs},
//   author={Taheri, Hossein and Mokhtari, Aryan and Hassani, Hamed and Pedarsani, Ramtin},
//   booktitle={ICML}, year={2020}}
// @inproceedings{koloskova2019decentralized,
//   title={Decentralized Stochastic Optimization and Gossip Algorithms with Compressed
//          Communication},
//   author={Koloskova, Anastasia and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICML}, year={2019}}
// @article{aketi2024adagossip,
//   title={AdaGossip: Adaptive Consensus Step-size for Decentralized Deep Learning with
//          Communication Compression},
//   author={Aketi, Sai Aparna and Hashemi, Abolfazl and Roy, Kaushik},
//   journal={arXiv preprint arXiv:2404.05919}, year={2024}}
// @inproceedings{kempe2003gossip,
//   title={Gossip-Based Computation of Aggregate Information},
//   author={Kempe, David and Dobra, Alin and Gehrke, Johannes}, booktitle={FOCS}, year={2003}}
#pragma once

#include <map>
#include <optional>
#include <span>

#include "models/objectives/objective.hpp"
#include "sim/algorithms/choco_node.hpp"  // AdaptiveStepSize

namespace dlsim::sim {

/// adag-sgp's default band: a sender's per-coordinate step lies in [γ/c, γ] (header
/// comment); the scenario key algorithm.step_band sets it.
inline constexpr double kAdaptiveStepBand = 4.0;

struct CompressedPushSumOptions {
  double gamma = 1.0;               // consensus_step; choco-sgp needs γ ≤ 1 (nonnegative mixing)
  bool adaptive = false;            // adag-sgp: per-coordinate γ_j and weights
  double beta = 0.999;              // adag-sgp
  double epsilon = 1e-8;            // adag-sgp
  double band = kAdaptiveStepBand;  // adag-sgp: c, steps in [γ/c, γ] (algorithm.step_band)
};

/// adag-sgp's per-coordinate step of one stream from its bias-corrected second moment v̂
/// (header comment): min(γ · clamp((ρ + ε) / (√v̂ + ε), 1/c, 1), 1), ρ = √(mean v̂).
/// Before any message (v̂ empty) every coordinate takes min(γ, 1).
Eigen::ArrayXd banded_adaptive_step(const Eigen::ArrayXd& second_moment, Eigen::Index dimension,
                                    double gamma, double epsilon, double band = kAdaptiveStepBand);

/// One term of the consensus step: the copy of stream `key` mixed with share `share`
/// (incoming: key = the sender's id, share = P_ij; outgoing: key = my stream, P_li).
struct CopyShare {
  int key = 0;
  double share = 0;
};

class CompressedPushSumNode {
 public:
  /// Starts at numerator x0 and weight 1 (a scalar, or one per coordinate if adaptive).
  /// Numerator copies start at 0; weight copies at 0 (choco-sgp) or at 1 (adag-sgp).
  CompressedPushSumNode(const models::Vector& x0, const CompressedPushSumOptions& options);

  /// The numerator x_i (the local step changes it in place).
  models::Vector& numerator() { return x_; }
  const models::Vector& numerator() const { return x_; }
  /// The weight w_i: 1 coordinate (choco-sgp) or d (adag-sgp).
  const models::Vector& weight() const { return w_; }
  /// z = x ⊘ w, the de-biased model.
  void debiased(models::Vector& z) const;

  /// What outgoing stream `stream` must compress: x − x̂ and w − ŵ of its copy.
  void differences(int stream, models::Vector& numerator, models::Vector& weight);
  /// The decoded messages of stream `stream` went out: its copy adds them.
  void sent(int stream, const models::Vector& q_numerator, const models::Vector& q_weight);
  /// Decoded messages from in-neighbour `from` arrived: my copy of `from` adds them.
  void received(int from, const models::Vector& q_numerator, const models::Vector& q_weight);
  /// The consensus step: + Σ_in P_ij γ ⊙ x̂_{j→i} − Σ_out P_li γ ⊙ x̂_{i→l} (same on w).
  void mix(std::span<const CopyShare> incoming, std::span<const CopyShare> outgoing);

  /// Copies held: outgoing streams plus in-neighbours ever heard from.
  std::size_t copies() const { return mine_.size() + theirs_.size(); }

 private:
  struct Copy {
    models::Vector numerator;              // x̂
    models::Vector weight;                 // ŵ
    std::optional<AdaptiveStepSize> step;  // adag-sgp: γ of this stream
  };
  Copy& copy(std::map<int, Copy>& copies, int key);
  void add(Copy& c, const models::Vector& q_numerator, const models::Vector& q_weight);
  // delta += share · γ(c) ⊙ copy (numerator and weight)
  void accumulate(const Copy& c, double share);

  CompressedPushSumOptions options_;
  models::Vector x_, w_;
  std::map<int, Copy> mine_;    // my outgoing streams
  std::map<int, Copy> theirs_;  // by in-neighbour
  models::Vector delta_x_, delta_w_;
};

}  // namespace dlsim::sim
