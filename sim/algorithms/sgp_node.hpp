// Stochastic gradient push's per-node rule (Assran et al., ICML 2019; docs/algorithms.md
// §3, sgp): push-sum gossip (Kempe et al. 2003) of a numerator x_i and a weight w_i
// (init 1) on any graph, directed and time-varying included; sgp.cpp runs it as a process.
// Iteration k:
//   z_i = x_i / w_i;   x_i ← local_step(x_i, ∇f_i(z_i; B))          (outside this class)
//   (x_i, w_i) ← p_ii (x_i, w_i) + Σ_{j∈in_k(i)} p_ij (x_j, w_j);    z_i = x_i / w_i
// with P^k the round's column-stochastic push weights (topologies/mixing_weights.hpp:
// sender j keeps p_jj and gives p_ij to each out-neighbour; uniform is 1/(out_j + 1)).
// Σ_i x_i and Σ_i w_i are conserved, so z_i converges to the average of the x_i⁰. The
// message is the vector [x_i; w_i] (d + 1 coordinates); the node mixes its own value as
// sent (decoded), like its out-neighbours, so the sums are conserved up to double
// rounding. The sum runs in the order the terms are given, starting from p_ii (x_i, w_i).
// A failed out-neighbour's share comes back to the sender (column rule, failures.hpp).
// Without math (empty x⁰) everything stays empty.
//
// @inproceedings{assran2019stochastic,
//   title={Stochastic Gradient Push for Distributed Deep Learning},
//   author={Assran, Mahmoud and Loizou, Nicolas and Ballas, Nicolas and Rabbat, Michael},
//   booktitle={ICML}, year={2019}}
// @inproceedings{kempe2003gossip,
//   title={Gossip-Based Computation of Aggregate Information},
//   author={Kempe, David and Dobra, Alin and Gehrke, Johannes}, booktitle={FOCS}, year={2003}}
#pragma once

#include "models/objectives/objective.hpp"

namespace dlsim::sim {

class SgpNode {
 public:
  explicit SgpNode(const models::Vector& x0)
      : x_(x0), z_(x0), pair_(x0.size() > 0 ? x0.size() + 1 : 0) {}

  /// x_i (the local step changes it in place).
  models::Vector& numerator() { return x_; }
  const models::Vector& numerator() const { return x_; }
  double weight() const { return w_; }
  /// z_i = x_i / w_i: where the gradient is taken, and the model the metrics see.
  const models::Vector& debiased() const { return z_; }

  /// The message [x_i; w_i] (empty without math).
  const models::Vector& message() {
    if (has_math()) {
      pair_.head(x_.size()) = x_;
      pair_[x_.size()] = w_;
    }
    return pair_;
  }
  /// Starts the mixing of a round with this node's value as sent (the decoded message):
  /// mixed = p_ii [x_i; w_i].
  void begin_mix(double self_share, const models::Vector& sent) {
    sent_ = sent;
    mixed_ = self_share * sent_;
  }
  /// mixed += p_ij [x_j; w_j] for a received (decoded) message.
  void add(double share, const models::Vector& received) {
    if (has_math()) mixed_ += share * received;
  }
  /// mixed += p_ji [x_i; w_i]: the share pushed to a failed out-neighbour comes back.
  void add_own(double share) {
    if (has_math()) mixed_ += share * sent_;
  }
  /// (x_i, w_i) ← mixed;  z_i = x_i / w_i.
  void end_mix() {
    if (!has_math()) return;
    x_ = mixed_.head(x_.size());
    w_ = mixed_[x_.size()];
    z_ = x_ / w_;
  }

 private:
  bool has_math() const { return pair_.size() > 0; }

  models::Vector x_, z_;
  double w_ = 1.0;
  models::Vector pair_, sent_, mixed_;
};

}  // namespace dlsim::sim
