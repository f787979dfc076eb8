// Stochastic gradient push's per-node rule (sim/algorithms/sgp_node.hpp) without the
// engine. The messages travel exactly here (no fp32 rounding), so the node mixes its own
// [x; w] as is.
//  - One round on two nodes by hand: node 0 keeps 3/4 and pushes 1/4, node 1 keeps and
//    pushes 1/2; (x, w) = (4, 1), (8, 1) become (7, 5/4) and (5, 3/4).
//  - A failed out-neighbour's share comes back: keeping 3/4 and getting 1/4 back leaves the
//    node where it was.
//  - On a directed ring with a chord and column-stochastic, not doubly stochastic, push
//    weights, Σ x and Σ w are conserved every round, the weights move away from 1, and
//    z_i = x_i / w_i reaches the true average of the starting vectors.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <vector>

#include "sim/algorithms/sgp_node.hpp"
#include "vector_helpers.hpp"

using dlsim::models::Vector;
using dlsim::sim::SgpNode;
using dlsim::test::vec;

namespace {

// One push-sum round with P (P(i, j): the share of j's value that i receives).
void round(std::vector<SgpNode>& nodes, const Eigen::MatrixXd& p) {
  std::vector<Vector> sent;
  for (auto& node : nodes) sent.push_back(node.message());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].begin_mix(p(Eigen::Index(i), Eigen::Index(i)), sent[i]);
    for (std::size_t j = 0; j < nodes.size(); ++j)
      if (j != i && p(Eigen::Index(i), Eigen::Index(j)) != 0)
        nodes[i].add(p(Eigen::Index(i), Eigen::Index(j)), sent[j]);
    nodes[i].end_mix();
  }
}

}  // namespace

TEST_CASE("SGP: one push-sum round on two nodes, by hand", "[sgp]") {
  Eigen::MatrixXd p(2, 2);
  p << 0.75, 0.5, 0.25, 0.5;  // columns sum to 1
  std::vector<SgpNode> nodes{SgpNode(vec({4})), SgpNode(vec({8}))};
  CHECK(nodes[0].message() == vec({4, 1}));
  round(nodes, p);
  CHECK(nodes[0].numerator() == vec({7}));  // ¾·4 + ½·8
  CHECK(nodes[0].weight() == 1.25);         // ¾ + ½
  CHECK(nodes[1].numerator() == vec({5}));  // ½·8 + ¼·4
  CHECK(nodes[1].weight() == 0.75);
  CHECK(nodes[0].debiased() == vec({5.6}));
  CHECK(nodes[1].debiased()[0] == Approx(20.0 / 3));
}

TEST_CASE("SGP: the share pushed to a failed out-neighbour comes back", "[sgp]") {
  SgpNode node(vec({4, -2}));
  const Vector sent = node.message();
  node.begin_mix(0.75, sent);
  node.add_own(0.25);
  node.end_mix();
  CHECK(node.numerator() == vec({4, -2}));
  CHECK(node.weight() == 1.0);
}

TEST_CASE("SGP: push-sum on a directed graph reaches the true average", "[sgp]") {
  const int n = 5, d = 3;
  // directed ring i → i + 1 and a chord 0 → 2; node i keeps a_i of its value
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(n, n);
  const double keep[n] = {0.2, 0.5, 0.7, 0.4, 0.6};
  for (int j = 0; j < n; ++j) p(j, j) = keep[j];
  p(1, 0) = 0.4;  // 0 pushes to 1 and 2
  p(2, 0) = 0.4;
  for (int j = 1; j < n; ++j) p((j + 1) % n, j) = 1 - keep[j];
  REQUIRE((p.colwise().sum().array() - 1).abs().maxCoeff() < 1e-15);
  REQUIRE((p.rowwise().sum().array() - 1).abs().maxCoeff() > 0.1);  // not doubly stochastic
  std::vector<SgpNode> nodes;
  Vector truth = Vector::Zero(d), sum0 = Vector::Zero(d);
  for (int i = 0; i < n; ++i) {
    const Vector x0 = Vector::Random(d) + Vector::Constant(d, 4.0 * i);
    sum0 += x0;
    nodes.emplace_back(x0);
  }
  truth = sum0 / n;
  double weight_spread = 0;
  for (int r = 0; r < 300; ++r) {
    round(nodes, p);
    Vector sum = Vector::Zero(d);
    double weights = 0;
    for (const auto& node : nodes) {
      sum += node.numerator();
      weights += node.weight();
      weight_spread = std::max(weight_spread, std::abs(node.weight() - 1));
    }
    REQUIRE((sum - sum0).cwiseAbs().maxCoeff() < 1e-12);
    REQUIRE(weights == Approx(double(n)).epsilon(1e-14));
  }
  CHECK(weight_spread > 0.1);  // the weights did move: z = x / w is needed
  for (const auto& node : nodes) CHECK((node.debiased() - truth).cwiseAbs().maxCoeff() < 1e-12);
}
