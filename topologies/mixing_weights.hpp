// Mixing weights of gossip (docs/design.md §9). Node i's next value is
//   x_i ← w_ii x_i + Σ_{j ∈ in(i)} w_ij x_j.
// Undirected graphs (symmetric rules, row sums 1 by w_ii = 1 − Σ_j w_ij):
//   metropolis: w_ij = 1 / (1 + max(d_i, d_j))  symmetric, doubly stochastic
//   uniform:    w_ij = 1 / (d_i + 1)             row-stochastic; doubly stochastic
//                                               only on regular graphs
//   max-degree: w_ij = 1 / (1 + d_max)           symmetric, doubly stochastic
// Directed graphs (and the rounds of one-peer-exponential) use push weights: the
// sender j splits its value among itself and its out-neighbours, so every column
// sums to 1 (column-stochastic) and w_jj = 1 − Σ_{i ∈ out(j)} w_ij, with
//   uniform 1/(out_j + 1), max-degree 1/(1 + max out), metropolis
//   1/(1 + max(out_i, out_j)).
// On the circulant directed kinds (directed-ring, directed-exponential, the rounds
// of one-peer-exponential) every in- and out-degree is the same d, every rule gives
// 1/(d + 1), and the rows sum to 1 as well: the weights are doubly stochastic.
// `stochasticity` checks all of this numerically.
#pragma once

#include <string>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim::topo {

enum class WeightRule { metropolis, uniform, max_degree };

/// Parses "metropolis" | "uniform" | "max-degree"; throws TopologyError("weights").
WeightRule weight_rule(const std::string& name);
std::string weight_rule_name(WeightRule rule);

struct MixingWeights {
  std::vector<double> self;  // w_ii
  std::vector<double> in;    // w_ij, aligned with the in-graph's targets (j ∈ in(i))
};

/// `out` is the graph, `in` its transpose (the same graph when undirected).
MixingWeights mixing_weights(const Graph& out, const Graph& in, WeightRule rule);

struct Stochasticity {
  bool row = false;     // Σ_j w_ij = 1 for every i
  bool column = false;  // Σ_i w_ij = 1 for every j
  bool nonnegative = false;
  bool doubly() const { return row && column; }
};

Stochasticity stochasticity(const Graph& in, const MixingWeights& w, double tolerance = 1e-12);

}  // namespace dlsim::topo
