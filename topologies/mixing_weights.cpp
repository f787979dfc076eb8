#include "topologies/mixing_weights.hpp"

#include <algorithm>
#include <cmath>

#include "topologies/analysis.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {

WeightRule weight_rule(const std::string& name) {
  if (name == "metropolis") return WeightRule::metropolis;
  if (name == "uniform") return WeightRule::uniform;
  if (name == "max-degree") return WeightRule::max_degree;
  throw TopologyError("weights", "unknown weight rule \"" + name +
                                     "\" (expected metropolis, uniform or max-degree)");
}

std::string weight_rule_name(WeightRule rule) {
  switch (rule) {
    case WeightRule::metropolis:
      return "metropolis";
    case WeightRule::uniform:
      return "uniform";
    case WeightRule::max_degree:
      return "max-degree";
  }
  return "?";
}

MixingWeights mixing_weights(const Graph& out, const Graph& in, WeightRule rule) {
  const int n = out.nodes();
  const int max_degree = degree_range(out).max;
  // The weight on the arc sender → receiver (receiver applies it to sender's value).
  const auto weight = [&](int receiver, int sender) {
    const int d_sender = out.out_degree(sender), d_receiver = out.out_degree(receiver);
    switch (rule) {
      case WeightRule::metropolis:
        return 1.0 / (1 + std::max(d_sender, d_receiver));
      case WeightRule::uniform:
        return 1.0 / ((out.directed ? d_sender : d_receiver) + 1);
      case WeightRule::max_degree:
        return 1.0 / (1 + max_degree);
    }
    return 0.0;
  };
  MixingWeights w;
  w.self.assign(std::size_t(n), 1.0);
  w.in.resize(in.targets.size());
  for (int i = 0; i < n; ++i) {
    for (std::int64_t e = in.offsets[i]; e < in.offsets[i + 1]; ++e) {
      const int j = in.targets[e];
      w.in[e] = weight(i, j);
      // Rows sum to 1 (pull) when undirected; columns (push) when directed.
      w.self[out.directed ? j : i] -= w.in[e];
    }
  }
  return w;
}

Stochasticity stochasticity(const Graph& in, const MixingWeights& w, double tolerance) {
  const int n = in.nodes();
  std::vector<double> row(w.self), column(w.self);
  bool nonnegative = true;
  for (int i = 0; i < n; ++i) {
    nonnegative = nonnegative && w.self[i] >= 0;
    for (std::int64_t e = in.offsets[i]; e < in.offsets[i + 1]; ++e) {
      row[i] += w.in[e];
      column[in.targets[e]] += w.in[e];
      nonnegative = nonnegative && w.in[e] >= 0;
    }
  }
  const auto all_one = [&](const std::vector<double>& sums) {
    return std::all_of(sums.begin(), sums.end(),
                       [&](double s) { return std::abs(s - 1.0) <= tolerance; });
  };
  return {all_one(row), all_one(column), nonnegative};
}

}  // namespace dlsim::topo
