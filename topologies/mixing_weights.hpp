// Symmetric, doubly stochastic mixing weights W for gossip (DESIGN.md §9):
//   metropolis: w_ij = 1 / (1 + max(d_i, d_j))
//   uniform:    w_ij = 1 / (d_i + 1)        (doubly stochastic on regular graphs only)
//   max-degree: w_ij = 1 / (1 + d_max)
// and w_ii = 1 − Σ_j w_ij.
#pragma once

#include <string>
#include <vector>

#include "topologies/graph.hpp"

namespace dlsim::topo {

enum class WeightRule { metropolis, uniform, max_degree };

/// Parses "metropolis" | "uniform" | "max-degree"; throws std::invalid_argument.
WeightRule weight_rule(const std::string& name);

struct MixingWeights {
  std::vector<double> self;                   // w_ii
  std::vector<std::vector<double>> neighbor;  // w_ij, aligned with Graph::neighbors[i]
};

MixingWeights mixing_weights(const Graph& g, WeightRule rule);

}  // namespace dlsim::topo
