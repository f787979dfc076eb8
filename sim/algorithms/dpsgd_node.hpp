// D-PSGD's per-node rule (Lian et al., NeurIPS 2017, "Can Decentralized Algorithms
// Outperform Centralized Algorithms?"; docs/algorithms.md §3): after its local step
// (local_step.hpp) node i mixes its model with the models of its in-neighbours of round k,
//   x_i ← w_ii x_i + Σ_{j ∈ in_k(i)} w_ij x_j,
// so with W^k = (w_ij) one iteration of all nodes is X ← W^k (X − η G). The sum runs in
// the order the terms are given (the order the messages arrived), starting from w_ii x_i.
// A failed in-neighbour contributes its weight times x_i (row rule, failures.hpp). This
// class is the math only (no time, no network); dpsgd.cpp runs it as a process.
#pragma once

#include "models/objectives/objective.hpp"

namespace dlsim::sim {

class DpsgdNode {
 public:
  explicit DpsgdNode(const models::Vector& x0) : x_(x0) {}

  /// x_i (the local step changes it in place).
  models::Vector& model() { return x_; }
  const models::Vector& model() const { return x_; }

  /// Starts the mixing of a round: mixed = w_ii x_i (x_i after the local step).
  void begin_mix(double self_weight) { mixed_ = self_weight * x_; }
  /// mixed += w_ij x_j for a received model (none without math: sizes differ).
  void add(double weight, const models::Vector& neighbour) {
    if (neighbour.size() == x_.size()) mixed_ += weight * neighbour;
  }
  /// mixed += w_ij x_i: a failed in-neighbour's weight goes to x_i.
  void add_own(double weight) { mixed_ += weight * x_; }
  /// x_i ← mixed.
  void end_mix() { x_ = mixed_; }

 private:
  models::Vector x_, mixed_;
};

}  // namespace dlsim::sim
