// The per-node rule of CHOCO-SGD, AdaG-SGD and CHOCO-gossip on time-varying undirected
// graphs (random-matching; docs/algorithms.md §3 "Time-varying graphs");
// choco_time_varying.cpp runs it as a process. A neighbour of round t may be gone in round
// t + 1 and come back later, so node i keeps, per neighbour j it has ever met, its own
// copy as j knows it, x̂_{i→j}, and j's copy as i knows it, x̂_{j→i} (both init 0, created
// at the first meeting). Iteration t, after the local step (choco-sgd, adag-sgd):
//   for every j ∈ N_t(i): q_{i→j} = C(x_i − x̂_{i→j});   x̂_{i→j} ← x̂_{i→j} + q_{i→j};
//   for every j ∈ N_t(i): x̂_{j→i} ← x̂_{j→i} + q_{j→i};
//   r_i = Σ_{j∈N_t(i)} w^t_ij (x̂_{j→i} − x̂_{i→j});   x_i ← x_i + γ r_i (adag: γ_i ⊙ r_i,
//   ConsensusStep in choco_node.hpp).
// x̂_{j→i} at i and at j are the same sums of the same decoded messages and w^t is
// symmetric, so the terms cancel pairwise and Σ_i x_i is preserved; a neighbour that
// reappears finds both copies where it left them. Memory: two vectors per neighbour ever
// met. The `order` of the static graphs does not apply: a round's messages are mixed in
// that round.
//
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
#pragma once

#include <map>

#include "models/objectives/objective.hpp"
#include "sim/algorithms/choco_node.hpp"

namespace dlsim::sim {

class ChocoTimeVaryingNode {
 public:
  ChocoTimeVaryingNode(const models::Vector& x0, const ConsensusOptions& consensus)
      : x_(x0), step_(consensus) {}

  /// x_i (the local step changes it in place).
  models::Vector& model() { return x_; }
  const models::Vector& model() const { return x_; }

  /// What goes to neighbour j: x_i − x̂_{i→j} (an expression: the compressor evaluates it).
  auto difference(int j) { return x_ - copies(j).mine; }
  /// The decoded q_{i→j} went to j: x̂_{i→j} ← x̂_{i→j} + q_{i→j}.
  void sent(int j, const models::Vector& q) {
    PairCopies& c = copies(j);
    if (x_.size() > 0) c.mine += q;
  }

  /// Starts a round's consensus step: r_i = 0.
  void begin_mix() { r_ = models::Vector::Zero(x_.size()); }
  /// The decoded q_{j→i} from neighbour j, whose weight is w_ij this round:
  /// x̂_{j→i} ← x̂_{j→i} + q_{j→i};  r_i ← r_i + w_ij (x̂_{j→i} − x̂_{i→j}).
  void received(int j, double weight, const models::Vector& q) {
    PairCopies& c = copies(j);
    if (x_.size() == 0) return;
    c.theirs += q;
    r_ += weight * (c.theirs - c.mine);
  }
  /// x_i ← x_i + γ r_i.
  void end_mix() { step_.apply(x_, r_); }

  /// Neighbours ever met (two copies each).
  std::size_t neighbours_met() const { return copies_.size(); }

 private:
  struct PairCopies {
    models::Vector mine;    // x̂_{i→j}: my copy as j knows it
    models::Vector theirs;  // x̂_{j→i}: j's copy as I know it
  };
  PairCopies& copies(int j) {
    PairCopies& c = copies_[j];
    if (c.mine.size() != x_.size()) {
      c.mine = models::Vector::Zero(x_.size());
      c.theirs = models::Vector::Zero(x_.size());
    }
    return c;
  }

  models::Vector x_, r_;
  ConsensusStep step_;
  std::map<int, PairCopies> copies_;  // every neighbour ever met
};

}  // namespace dlsim::sim
