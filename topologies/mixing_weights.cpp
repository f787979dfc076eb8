#include "topologies/mixing_weights.hpp"

#include <algorithm>
#include <stdexcept>

namespace dlsim::topo {

WeightRule weight_rule(const std::string& name) {
  if (name == "metropolis") return WeightRule::metropolis;
  if (name == "uniform") return WeightRule::uniform;
  if (name == "max-degree") return WeightRule::max_degree;
  throw std::invalid_argument("unknown weight rule \"" + name + "\"");
}

MixingWeights mixing_weights(const Graph& g, WeightRule rule) {
  const int n = g.nodes();
  int max_degree = 0;
  for (int i = 0; i < n; ++i) max_degree = std::max(max_degree, g.degree(i));
  MixingWeights w{std::vector<double>(n), std::vector<std::vector<double>>(n)};
  for (int i = 0; i < n; ++i) {
    double sum = 0;
    for (int j : g.neighbors[i]) {
      double wij = 0;
      switch (rule) {
        case WeightRule::metropolis:
          wij = 1.0 / (1 + std::max(g.degree(i), g.degree(j)));
          break;
        case WeightRule::uniform:
          wij = 1.0 / (g.degree(i) + 1);
          break;
        case WeightRule::max_degree:
          wij = 1.0 / (1 + max_degree);
          break;
      }
      w.neighbor[i].push_back(wij);
      sum += wij;
    }
    w.self[i] = 1.0 - sum;
  }
  return w;
}

}  // namespace dlsim::topo
