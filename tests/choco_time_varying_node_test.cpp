// CHOCO's per-neighbour copies on time-varying graphs (sim/algorithms/
// choco_time_varying_node.hpp) without the engine, on random perfect matchings of 8 nodes
// (weight 1/2 per pair, partners leave and come back):
//  - with the identity compressor and γ = 1 every round is exact pairwise averaging,
//    x_i, x_j ← (x_i + x_j)/2, also when partners meet again (the copies stay exact);
//  - with top-k the sum of the models is preserved every round (the terms cancel pairwise
//    with symmetric weights) and the models reach the true average.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <algorithm>
#include <functional>
#include <numeric>
#include <random>
#include <vector>

#include "models/compress/sparsifiers.hpp"
#include "sim/algorithms/choco_time_varying_node.hpp"

using dlsim::models::Vector;
using dlsim::sim::ChocoTimeVaryingNode;

namespace {

using Compress = std::function<Vector(const Vector&)>;

// Round t's matching: partner[i] (a uniformly random perfect matching).
std::vector<int> matching(int n, std::mt19937_64& rng) {
  std::vector<int> order(static_cast<std::size_t>(n)), partner(order.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), rng);
  for (int p = 0; p < n; p += 2) {
    partner[order[p]] = order[p + 1];
    partner[order[p + 1]] = order[p];
  }
  return partner;
}

// One round: every node compresses x_i − x̂_{i→j} for its partner, then mixes j's message.
void round(std::vector<ChocoTimeVaryingNode>& nodes, const std::vector<int>& partner,
           const Compress& compress) {
  std::vector<Vector> q(nodes.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    q[i] = compress(nodes[i].difference(partner[i]));
    nodes[i].sent(partner[i], q[i]);
  }
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].begin_mix();
    nodes[i].received(partner[i], 0.5, q[std::size_t(partner[i])]);
    nodes[i].end_mix();
  }
}

}  // namespace

TEST_CASE("per-neighbour copies with the identity compressor are exact pairwise averaging",
          "[choco]") {
  const int n = 8, d = 4;
  std::mt19937_64 rng(3);
  std::vector<ChocoTimeVaryingNode> nodes;
  std::vector<Vector> exact;
  for (int i = 0; i < n; ++i) {
    exact.push_back(Vector::Random(d) + Vector::Constant(d, 5.0 * i));
    nodes.emplace_back(exact.back(), dlsim::sim::ConsensusOptions{1.0});
  }
  for (int t = 0; t < 60; ++t) {
    const std::vector<int> partner = matching(n, rng);
    round(nodes, partner, [](const Vector& v) { return v; });
    std::vector<Vector> next(exact.size());
    for (int i = 0; i < n; ++i) next[i] = (exact[i] + exact[partner[i]]) / 2;
    exact = next;
    for (int i = 0; i < n; ++i) {
      INFO("round " << t << " node " << i);
      REQUIRE((nodes[i].model() - exact[i]).cwiseAbs().maxCoeff() < 1e-12);
    }
  }
  for (const auto& node : nodes) CHECK(node.neighbours_met() == std::size_t(n - 1));
}

TEST_CASE("per-neighbour copies with top-k keep the sum and reach the true average", "[choco]") {
  const int n = 8, d = 30;
  std::mt19937_64 rng(5);
  dlsim::models::SparsityOptions o;
  o.ratio = 0.7;
  dlsim::models::TopKCompressor top_k(o);
  std::mt19937_64 unused(0);  // top-k draws nothing
  const Compress compress = [&](const Vector& v) {
    Vector out;
    top_k.decode(top_k.encode(v, unused), out);
    return out;
  };
  std::vector<ChocoTimeVaryingNode> nodes;
  Vector sum0 = Vector::Zero(d);
  for (int i = 0; i < n; ++i) {
    const Vector x0 = Vector::Random(d) + Vector::Constant(d, 3.0 * i);
    sum0 += x0;
    nodes.emplace_back(x0, dlsim::sim::ConsensusOptions{0.3});
  }
  for (int t = 0; t < 400; ++t) {
    round(nodes, matching(n, rng), compress);
    Vector sum = Vector::Zero(d);
    for (const auto& node : nodes) sum += node.model();
    REQUIRE((sum - sum0).cwiseAbs().maxCoeff() < 1e-11);
  }
  for (const auto& node : nodes) CHECK((node.model() - sum0 / n).cwiseAbs().maxCoeff() < 1e-6);
}
