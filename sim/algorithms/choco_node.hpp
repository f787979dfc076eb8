// The per-node rule of CHOCO-SGD, AdaG-SGD and CHOCO-gossip on static symmetric graphs
// (docs/algorithms.md §3); choco_sgd.cpp runs it as a process. Node i keeps its model
// x_i, its public copy x̂_i (init 0) and s_i = Σ_{j∈N(i)} w_ij x̂_j (init 0), the
// neighbours' copies as seen through their messages q_j. The steps of one iteration:
//   1. s_i ← s_i + Σ_j w_ij q_j           (receive: the neighbours' decoded messages)
//   2. r_i = s_i + (w_ii − 1) x̂_i         (= Σ_j w_ij (x̂_j − x̂_i), the gossip error)
//   3. x_i ← x_i + γ r_i                  (adag-sgd: γ_i ⊙ r_i, ConsensusStep below)
//   4. local step (local_step.hpp)        (choco-gossip: none)
//   5. q_i = C(x_i − x̂_i); x̂_i ← x̂_i + q_i; q_i goes to every neighbour (one encoding).
// Orders (update()): adagossip (the AdaGossip reference code's, the default) runs 1–3 on
// the messages of iteration k − 1, then 4, 5 (1–3 skipped at k = 0); choco-paper (the
// original CHOCO code) runs 1 on the messages of iteration k − 1, then 4, 2–3, 5.
// x̂_i adds the decoded q_i, exactly what the neighbours add, so Σ_i r_i = 0 with
// symmetric weights and, without gradients, the average of the models is preserved up to
// double rounding. With C the identity and γ = 1, x̂ = x after step 5 and the adagossip
// order is exact gossip x ← W x. A failed neighbour j leaves s_i and gives its weight to
// w_ii (forget(); row rule, failures.hpp), which needs the copies x̂_j one by one.
//
// AdaGossip's adaptive consensus step (adag-sgd), per coordinate, after k ≥ 1 steps:
//   v ← β v + (1 − β) r ⊙ r;   v̂ = v / (1 − β^k);   γ_i = min(γ / (√v̂ + ε), 1);
//   x ← x + γ_i ⊙ r.
// It sends nothing extra: v lives on the node. AdaptiveStepSize is the first line and γ_i
// on their own; the compressed push-sum (compressed_push_sum.hpp) feeds it the messages of
// one sender instead of a node's gossip error and uses only its v̂ (second_moment()).
//
// @inproceedings{koloskova2019decentralized,
//   title={Decentralized Stochastic Optimization and Gossip Algorithms with Compressed
//          Communication},
//   author={Koloskova, Anastasia and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICML}, year={2019}}
// @inproceedings{koloskova2020decentralized,
//   title={Decentralized Deep Learning with Arbitrary Communication Compression},
//   author={Koloskova, Anastasia and Lin, Tao and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICLR}, year={2020}}
// @article{aketi2024adagossip,
//   title={AdaGossip: Adaptive Consensus Step-size for Decentralized Deep Learning with
//          Communication Compression},
//   author={Aketi, Sai Aparna and Hashemi, Abolfazl and Roy, Kaushik},
//   journal={arXiv preprint arXiv:2404.05919}, year={2024}}
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <utility>
#include <vector>

#include "models/cpu/elementwise.hpp"
#include "models/objectives/objective.hpp"

namespace dlsim::sim {

/// AdaGossip's per-coordinate step γ_k = min(γ / (√(v/(1 − β^k)) + ε), 1) after k
/// observations r¹..r^k with v ← β v + (1 − β) r ⊙ r.
class AdaptiveStepSize {
 public:
  AdaptiveStepSize(double gamma, double beta, double epsilon)
      : gamma_(gamma), beta_(beta), epsilon_(epsilon) {}

  void observe(const models::Vector& r) {
    ++steps_;
    if (v_.size() != r.size()) v_ = models::Vector::Zero(r.size());
    v_ = beta_ * v_ + (1 - beta_) * r.cwiseProduct(r);
  }
  /// The step of every coordinate (needs at least one observation).
  Eigen::ArrayXd step() const {
    const double correction = 1 - std::pow(beta_, double(steps_));
    return (gamma_ / ((v_.array() / correction).sqrt() + epsilon_)).min(1.0);
  }
  std::int64_t observations() const { return steps_; }
  /// The bias-corrected second moment v̂ = v / (1 − β^k) (empty before any observation).
  Eigen::ArrayXd second_moment() const {
    if (steps_ == 0) return Eigen::ArrayXd();
    return v_.array() / (1 - std::pow(beta_, double(steps_)));
  }

 private:
  double gamma_;
  double beta_;
  double epsilon_;
  std::int64_t steps_ = 0;
  models::Vector v_;
};

/// The consensus step's parameters: γ (algorithm.consensus_step) and AdaGossip's.
struct ConsensusOptions {
  double gamma = 1.0;     // γ
  bool adaptive = false;  // adag-sgd: γ_i per coordinate
  double beta = 0.999;    // adag-sgd
  double epsilon = 1e-8;  // adag-sgd
};

/// x ← x + γ r, or AdaGossip's x ← x + γ_i ⊙ r (header comment).
class ConsensusStep {
 public:
  explicit ConsensusStep(const ConsensusOptions& o)
      : gamma_(o.gamma), adaptive_(o.adaptive), adaptive_step_(o.gamma, o.beta, o.epsilon) {}

  /// Whether γ is per coordinate (adag-sgd): then apply() needs r itself.
  bool adaptive() const { return adaptive_; }
  double gamma() const { return gamma_; }
  /// x ← x + γ r (adag: γ_i ⊙ r).
  void apply(models::Vector& x, const models::Vector& r) {
    if (x.size() == 0) return;  // no math
    if (!adaptive_) {
      x += gamma_ * r;
      return;
    }
    adaptive_step_.observe(r);
    x.array() += adaptive_step_.step() * r.array();
  }

 private:
  double gamma_;
  bool adaptive_;
  AdaptiveStepSize adaptive_step_;
};

/// Where the consensus step sits in an iteration (header comment).
enum class ChocoOrder { adagossip, choco_paper };

class ChocoNode {
 public:
  /// Starts at x0 with x̂_i = s_i = 0. `self_weight` is w_ii and `in_weights` the w_ij
  /// of the in-neighbours, numbered 0, 1, ... in that order (receive(), forget()).
  /// keep_copies: one copy x̂_j per neighbour (deg_i · d more memory), needed by forget().
  ChocoNode(const models::Vector& x0, double self_weight, std::vector<double> in_weights,
            const ConsensusOptions& consensus, ChocoOrder order, bool keep_copies = false)
      : x_(x0),
        public_copy_(models::Vector::Zero(x0.size())),
        neighbour_sum_(models::Vector::Zero(x0.size())),
        self_weight_(self_weight),
        in_weights_(std::move(in_weights)),
        step_(consensus),
        order_(order),
        keep_copies_(keep_copies) {
    if (keep_copies_) copies_.assign(in_weights_.size(), models::Vector::Zero(x_.size()));
  }

  /// x_i (the local step changes it in place).
  models::Vector& model() { return x_; }
  const models::Vector& model() const { return x_; }
  /// x̂_i, this node's copy as its neighbours know it.
  const models::Vector& public_copy() const { return public_copy_; }
  ChocoOrder order() const { return order_; }
  double self_weight() const { return self_weight_; }

  /// Step 1 for in-neighbour j's decoded message: s_i ← s_i + w_ij q_j (and x̂_j += q_j).
  /// Ignored without math (q and x empty).
  void receive(std::size_t j, const models::Vector& q) {
    if (q.size() != x_.size() || x_.size() == 0) return;
    neighbour_sum_ += in_weights_[j] * q;
    if (keep_copies_) copies_[j] += q;
  }

  /// Step 1 for in-neighbour j without a decoded copy: add(weight, v) adds weight · q_j to
  /// v (WorkerMath::add_decoded). The same doubles as receive(): s_i, x̂_j start at +0 and
  /// only ever gain sums, so they hold no −0.0. Ignored without math.
  template <class AddScaled>
  void receive_with(std::size_t j, AddScaled&& add) {
    if (x_.size() == 0) return;
    add(in_weights_[j], neighbour_sum_);
    if (keep_copies_) add(1.0, copies_[j]);  // 1 · q = q exactly
  }

  /// In-neighbour j failed: w_ii ← w_ii + w_ij and s_i = Σ_{l alive} w_il x̂_l, recomputed
  /// from the copies; the neighbours after j are renumbered j, j + 1, ...
  void forget(std::size_t j) {
    if (!keep_copies_) throw std::logic_error("ChocoNode::forget needs keep_copies");
    self_weight_ += in_weights_[j];
    in_weights_.erase(in_weights_.begin() + std::ptrdiff_t(j));
    copies_.erase(copies_.begin() + std::ptrdiff_t(j));
    if (x_.size() == 0) return;
    neighbour_sum_.setZero();
    for (std::size_t l = 0; l < in_weights_.size(); ++l)
      neighbour_sum_ += in_weights_[l] * copies_[l];
  }

  /// Steps 2–3: r_i = s_i + (w_ii − 1) x̂_i;  x_i ← x_i + γ r_i. With one γ, in one pass
  /// that does not keep r_i (each coordinate's operations as in two passes).
  void consensus() {
    if (x_.size() == 0) return;
    if (!step_.adaptive()) {
      // x_ += γ (s_i + (w_ii − 1) x̂_i), eight coordinates at a time where possible
      models::elementwise::add_scaled_sum(x_.data(), step_.gamma(), neighbour_sum_.data(),
                                          self_weight_ - 1, public_copy_.data(), x_.size());
      return;
    }
    gossip_error_ = neighbour_sum_ + (self_weight_ - 1) * public_copy_;
    step_.apply(x_, gossip_error_);
  }

  /// Steps 2–4 of iteration k (0-based) in this node's order, after step 1 (receive() of
  /// iteration k − 1's messages); `local_step()` is step 4 on model().
  template <class LocalStep>
  void update(std::int64_t k, LocalStep&& local_step) {
    if (order_ == ChocoOrder::adagossip) {
      if (k > 0) consensus();
      local_step();
      return;
    }
    local_step();
    consensus();
  }

  /// Step 5's input, x_i − x̂_i (an expression: the compressor evaluates it).
  auto difference() const { return x_ - public_copy_; }
  /// Step 5: x̂_i ← x̂_i + q_i with the decoded message q_i.
  void sent(const models::Vector& q) {
    if (x_.size() > 0) public_copy_ += q;
  }
  /// The same through add(weight, v) (receive_with()).
  template <class AddScaled>
  void sent_with(AddScaled&& add) {
    if (x_.size() > 0) add(1.0, public_copy_);
  }

 private:
  models::Vector x_, public_copy_, neighbour_sum_, gossip_error_;
  double self_weight_;
  std::vector<double> in_weights_;
  ConsensusStep step_;
  ChocoOrder order_;
  bool keep_copies_;
  std::vector<models::Vector> copies_;  // x̂_j per in-neighbour (keep_copies only)
};

}  // namespace dlsim::sim
