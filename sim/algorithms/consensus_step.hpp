// CHOCO's consensus step x ← x + γ r, and AdaGossip's adaptive version (ALGORITHMS.md §3),
// with r = Σ_j w_ij (x̂_j − x̂_i) the gossip error:
//   choco:  x ← x + γ r
//   adag:   v ← β v + (1 − β) r ⊙ r;   v̂ = v / (1 − β^k)   (k = steps taken so far, ≥ 1);
//           γ_i = min(γ / (√v̂ + ε), 1);   x ← x + γ_i ⊙ r
// AdaGossip sends nothing extra: v lives on the node. AdaptiveStepSize is the second
// line on its own; the compressed push-sum (compressed_push_sum.hpp) feeds it the messages
// of one sender instead of a node's gossip error and uses only its v̂ (second_moment()).
//
// @article{aketi2024adagossip,
//   title={AdaGossip: Adaptive Consensus Step-size for Decentralized Deep Learning with
//          Communication Compression},
//   author={Aketi, Sai Aparna and Hashemi, Abolfazl and Roy, Kaushik},
//   journal={arXiv preprint arXiv:2404.05919}, year={2024}}
#pragma once

#include <cmath>

#include "models/objectives/objective.hpp"
#include "sim/scenario/scenario.hpp"

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

class ConsensusStep {
 public:
  explicit ConsensusStep(const AlgorithmSpec& a)
      : gamma_(a.consensus_step),
        adaptive_(a.kind == "adag-sgd"),
        adaptive_step_(a.consensus_step, a.beta, a.epsilon) {}

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

}  // namespace dlsim::sim
