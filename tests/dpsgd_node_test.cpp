// D-PSGD's per-node rule (sim/algorithms/dpsgd_node.hpp) without the engine:
//  - three nodes with a hand-picked row-stochastic W, models and gradients: one iteration
//    equals the closed form X ← W(X − ηG), worked out by hand (dyadic numbers, so exact);
//  - a failed in-neighbour's weight goes to the node's own model (row rule);
//  - zero gradients on a ring with W doubly stochastic: every node reaches the true average
//    of the starting models and the rows match W^k X⁰ computed as a matrix power.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <vector>

#include "sim/algorithms/dpsgd_node.hpp"
#include "vector_helpers.hpp"

using dlsim::models::Vector;
using dlsim::sim::DpsgdNode;
using dlsim::test::vec;

namespace {

// One synchronous D-PSGD round of all nodes for the dense row-stochastic W: local step
// x_i ← x_i − η g_i, then x_i ← w_ii x_i + Σ_{j ≠ i, w_ij ≠ 0} w_ij x_j (in index order).
void round(std::vector<DpsgdNode>& nodes, const Eigen::MatrixXd& w, const std::vector<Vector>& g,
           double eta) {
  const int n = int(nodes.size());
  for (int i = 0; i < n; ++i) {
    nodes[i].model() -= eta * g[i];
    nodes[i].begin_mix(w(i, i));
  }
  std::vector<Vector> sent;
  for (const auto& node : nodes) sent.push_back(node.model());
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j)
      if (j != i && w(i, j) != 0) nodes[i].add(w(i, j), sent[j]);
    nodes[i].end_mix();
  }
}

}  // namespace

TEST_CASE("D-PSGD on three nodes equals x <- W(x - eta g), worked by hand", "[dpsgd]") {
  Eigen::MatrixXd w(3, 3);
  w << 0.5, 0.5, 0, 0, 0.25, 0.75, 0.25, 0.25, 0.5;
  std::vector<DpsgdNode> nodes{DpsgdNode(vec({1, 2})), DpsgdNode(vec({-2, 4})),
                               DpsgdNode(vec({3, 0}))};
  const std::vector<Vector> g{vec({2, -2}), vec({0, 4}), vec({-6, 2})};
  round(nodes, w, g, 0.5);
  // X − ηG = [(0, 3); (−2, 2); (6, −1)], then W times it, row by row:
  CHECK(nodes[0].model() == vec({-1, 2.5}));    // ½(0, 3) + ½(−2, 2)
  CHECK(nodes[1].model() == vec({4, -0.25}));   // ¼(−2, 2) + ¾(6, −1)
  CHECK(nodes[2].model() == vec({2.5, 0.75}));  // ¼(0, 3) + ¼(−2, 2) + ½(6, −1)
}

TEST_CASE("D-PSGD gives a failed in-neighbour's weight to the node's own model", "[dpsgd]") {
  // Node 2 of the case above with in-neighbour 0 failed: x_2 ← (½ + ¼) y_2 + ¼ y_1.
  DpsgdNode node(vec({6, -1}));
  node.begin_mix(0.5);
  node.add_own(0.25);            // in-neighbour 0: failed, no message
  node.add(0.25, vec({-2, 2}));  // in-neighbour 1
  node.end_mix();
  CHECK(node.model() == vec({4, -0.25}));
}

TEST_CASE("D-PSGD without gradients reaches the true average on a ring", "[dpsgd]") {
  const int n = 6, d = 4;
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);  // metropolis: 1/3 self and each side
  for (int i = 0; i < n; ++i) {
    w(i, i) = 1.0 / 3;
    w(i, (i + 1) % n) = 1.0 / 3;
    w(i, (i + n - 1) % n) = 1.0 / 3;
  }
  Eigen::MatrixXd x0 = Eigen::MatrixXd::Random(n, d);
  std::vector<DpsgdNode> nodes;
  for (int i = 0; i < n; ++i) nodes.emplace_back(Vector(x0.row(i).transpose()));
  const std::vector<Vector> zero(std::size_t(n), Vector::Zero(d));
  const Vector truth = x0.colwise().mean().transpose();
  Eigen::MatrixXd power = x0;
  for (int k = 1; k <= 200; ++k) {
    round(nodes, w, zero, 0.1);
    power = w * power;
    if (k % 50 != 0) continue;
    for (int i = 0; i < n; ++i)
      CHECK((nodes[i].model() - power.row(i).transpose()).cwiseAbs().maxCoeff() < 1e-13);
  }
  for (const auto& node : nodes) CHECK((node.model() - truth).cwiseAbs().maxCoeff() < 1e-12);
}
