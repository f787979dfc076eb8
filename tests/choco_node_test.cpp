// CHOCO's per-node rule and AdaGossip's step (sim/algorithms/choco_node.hpp) without the
// engine, driven synchronously: in iteration k every node first adds the messages of
// iteration k − 1 (step 1), then update() runs steps 2–4 in its order, then step 5.
//  - With the identity compressor (q = x − x̂ passed as is) and γ = 1, CHOCO-gossip is
//    exact gossip: after iterations 0..K the models are W^K X⁰.
//  - Both orders against their closed forms with ∇f_i(x) = x − b_i, identity compressor and
//    M = I + γ(W − I): iteration 0 is X ← (1 − η)X + ηB in both; from k = 1 on
//      adagossip    X ← (1 − η) M X + ηB         (consensus, then the local step)
//      choco-paper  X ← (1 − η) X + ηB + γ(W − I)X   (the local step, then consensus
//                                                     with the copies sent before it).
//  - With top-k and a doubly stochastic W the sum of the models never moves (both orders).
//  - The AdaGossip step against its formula evaluated by hand, coordinate by coordinate.
//  - CHOCO-gossip on a ring: with the identity compressor the error contracts exactly at
//    ρ = max_{j≠0} |1 − γ(1 − λ_j)|, λ_j = 1/3 + (2/3)cos(2πj/n) (metropolis ring): never
//    slower for any start, at exactly ρ^K on the slowest eigenvector; with top-k it still
//    reaches the true average linearly.
//  - A failed neighbour (forget) leaves s_i = Σ_{alive} w_ij x̂_j and w_ii ← w_ii + w_ij.
#include <catch2/catch.hpp>

#include <Eigen/Dense>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "models/compress/sparsifiers.hpp"
#include "sim/algorithms/choco_node.hpp"

using dlsim::models::Vector;
using dlsim::sim::AdaptiveStepSize;
using dlsim::sim::ChocoNode;
using dlsim::sim::ChocoOrder;
using dlsim::sim::ConsensusOptions;
using dlsim::sim::ConsensusStep;

namespace {

// What a sender's message becomes at every receiver: C(v), decoded.
using Compress = std::function<Vector(const Vector&)>;

const Compress kIdentity = [](const Vector& v) { return v; };

Compress top_k(double ratio) {
  return [ratio](const Vector& v) {
    dlsim::models::SparsityOptions o;
    o.ratio = ratio;
    dlsim::models::TopKCompressor c(o);
    std::mt19937_64 rng(1);
    Vector out;
    c.decode(c.encode(v, rng), out);
    return out;
  };
}

Eigen::MatrixXd metropolis_ring(int n) {
  Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    w(i, i) = 1.0 / 3;
    w(i, (i + 1) % n) = 1.0 / 3;
    w(i, (i + n - 1) % n) = 1.0 / 3;
  }
  return w;
}

// Nodes on the dense W; node i's in-neighbours are the j ≠ i with w_ij ≠ 0, numbered in
// index order.
struct Network {
  Eigen::MatrixXd w;
  std::vector<std::vector<int>> in;
  std::vector<ChocoNode> nodes;
  std::vector<Vector> messages;  // of the previous iteration

  Network(const Eigen::MatrixXd& w_, const Eigen::MatrixXd& x0, const ConsensusOptions& o,
          ChocoOrder order, bool keep_copies = false)
      : w(w_) {
    for (int i = 0; i < w.rows(); ++i) {
      std::vector<int> from;
      std::vector<double> weights;
      for (int j = 0; j < w.cols(); ++j) {
        if (j == i || w(i, j) == 0) continue;
        from.push_back(j);
        weights.push_back(w(i, j));
      }
      in.push_back(from);
      nodes.emplace_back(Vector(x0.row(i).transpose()), w(i, i), weights, o, order, keep_copies);
    }
  }

  // Iteration k; `local(i, x)` is node i's local step (none: CHOCO-gossip).
  void iterate(std::int64_t k, const Compress& compress,
               const std::function<void(int, Vector&)>& local = {}) {
    const int n = int(nodes.size());
    for (int i = 0; i < n && k > 0; ++i)
      for (std::size_t j = 0; j < in[i].size(); ++j) nodes[i].receive(j, messages[in[i][j]]);
    messages.assign(std::size_t(n), Vector());
    for (int i = 0; i < n; ++i) {
      nodes[i].update(k, [&] {
        if (local) local(i, nodes[i].model());
      });
      messages[i] = compress(nodes[i].difference());
      nodes[i].sent(messages[i]);
    }
  }

  Eigen::MatrixXd models() const {
    Eigen::MatrixXd x(nodes.size(), nodes[0].model().size());
    for (std::size_t i = 0; i < nodes.size(); ++i) x.row(Eigen::Index(i)) = nodes[i].model();
    return x;
  }
};

}  // namespace

TEST_CASE("CHOCO with the identity compressor and gamma 1 is exact gossip x <- W x", "[choco]") {
  const Eigen::MatrixXd w = metropolis_ring(7);
  const Eigen::MatrixXd x0 = Eigen::MatrixXd::Random(7, 5);
  for (const ChocoOrder order : {ChocoOrder::adagossip, ChocoOrder::choco_paper}) {
    Network net(w, x0, {1.0}, order);
    Eigen::MatrixXd exact = x0;
    for (int k = 0; k < 40; ++k) {
      net.iterate(k, kIdentity);
      if (k > 0) exact = w * exact;
      INFO("iteration " << k);
      REQUIRE((net.models() - exact).cwiseAbs().maxCoeff() < 1e-13);
    }
  }
}

TEST_CASE("CHOCO's two orders follow their closed forms with gradients", "[choco]") {
  const int n = 5, d = 3;
  const double gamma = 0.5, eta = 0.2;
  const Eigen::MatrixXd w = metropolis_ring(n);
  const Eigen::MatrixXd x0 = Eigen::MatrixXd::Random(n, d);
  const Eigen::MatrixXd b = Eigen::MatrixXd::Random(n, d);
  const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(n, n);
  const Eigen::MatrixXd m = identity + gamma * (w - identity);
  // ∇f_i(x) = x − b_i: the local step x ← x − η(x − b_i)
  const auto local = [&](int i, Vector& x) { x -= eta * (x - b.row(i).transpose()); };
  for (const ChocoOrder order : {ChocoOrder::adagossip, ChocoOrder::choco_paper}) {
    const bool paper = order == ChocoOrder::choco_paper;
    INFO((paper ? "choco-paper" : "adagossip"));
    Network net(w, x0, {gamma}, order);
    Eigen::MatrixXd exact = x0;
    for (int k = 0; k < 30; ++k) {
      net.iterate(k, kIdentity, local);
      if (k == 0)
        exact = (1 - eta) * exact + eta * b;
      else if (paper)
        exact = (1 - eta) * exact + eta * b + gamma * (w - identity) * exact;
      else
        exact = (1 - eta) * m * exact + eta * b;
      INFO("iteration " << k);
      REQUIRE((net.models() - exact).cwiseAbs().maxCoeff() < 1e-13);
    }
  }
  // the two orders do differ: after two iterations by η γ (W − I) X_0 ≠ 0
  Network a(w, x0, {gamma}, ChocoOrder::adagossip), p(w, x0, {gamma}, ChocoOrder::choco_paper);
  for (int k = 0; k < 2; ++k) {
    a.iterate(k, kIdentity, local);
    p.iterate(k, kIdentity, local);
  }
  CHECK((a.models() - p.models()).cwiseAbs().maxCoeff() > 1e-3);
}

TEST_CASE("CHOCO with top-k keeps the sum of the models with doubly stochastic W", "[choco]") {
  const int n = 8, d = 20;
  const Eigen::MatrixXd w = metropolis_ring(n);
  const Eigen::MatrixXd x0 = 10 * Eigen::MatrixXd::Random(n, d);
  const Eigen::RowVectorXd sum0 = x0.colwise().sum();
  for (const ChocoOrder order : {ChocoOrder::adagossip, ChocoOrder::choco_paper}) {
    Network net(w, x0, {0.3}, order);
    for (int k = 0; k < 500; ++k) {
      net.iterate(k, top_k(0.75));
      REQUIRE((net.models().colwise().sum() - sum0).cwiseAbs().maxCoeff() < 1e-11);
    }
    const Eigen::MatrixXd x = net.models();
    const double spread0 = (x0.rowwise() - sum0 / n).squaredNorm();
    CHECK((x.rowwise() - sum0 / n).squaredNorm() < 1e-6 * spread0);  // and they did mix
  }
}

TEST_CASE("AdaGossip's step equals its formula on hand-picked r", "[adag]") {
  const double gamma = 0.1, beta = 0.5, epsilon = 1e-8;
  ConsensusStep step(ConsensusOptions{gamma, true, beta, epsilon});
  Vector x = Vector::Zero(3);
  const Vector r1 = (Vector(3) << 0.5, -2, 0).finished();
  const Vector r2 = (Vector(3) << 1, 0, 4).finished();
  step.apply(x, r1);
  // v = (1 − β) r1² = (0.125, 2, 0); v̂ = v / (1 − β) = r1²; √v̂ = (0.5, 2, 0)
  const double a1[3] = {gamma / (0.5 + epsilon), gamma / (2 + epsilon), 1.0};  // third clamps
  for (int c = 0; c < 3; ++c) CHECK(x[c] == Approx(a1[c] * r1[c]).epsilon(1e-15));
  step.apply(x, r2);
  // v = β v + (1 − β) r2² = (0.5625, 1, 8); v̂ = v / (1 − β²) = (0.75, 4/3, 32/3)
  const double a2[3] = {gamma / (std::sqrt(0.75) + epsilon), gamma / (std::sqrt(4.0 / 3) + epsilon),
                        gamma / (std::sqrt(32.0 / 3) + epsilon)};
  for (int c = 0; c < 3; ++c) CHECK(x[c] == Approx(a1[c] * r1[c] + a2[c] * r2[c]).epsilon(1e-15));
  // and the step alone
  AdaptiveStepSize alone(gamma, beta, epsilon);
  alone.observe(r1);
  alone.observe(r2);
  CHECK(alone.observations() == 2);
  for (int c = 0; c < 3; ++c) CHECK(alone.step()[c] == Approx(a2[c]).epsilon(1e-15));
  CHECK(alone.second_moment()[2] == Approx(32.0 / 3).epsilon(1e-15));
}

TEST_CASE("plain CHOCO's step is x <- x + gamma r", "[choco]") {
  ConsensusStep step(ConsensusOptions{0.25});
  Vector x = (Vector(2) << 1, 2).finished();
  step.apply(x, (Vector(2) << 4, -8).finished());
  CHECK(x == (Vector(2) << 2, 0).finished());
}

TEST_CASE("CHOCO-gossip on a ring contracts at the spectral rate and reaches the true average",
          "[choco]") {
  const int n = 8, d = 6;
  const double gamma = 0.5;
  const double pi = std::acos(-1.0);
  const Eigen::MatrixXd w = metropolis_ring(n);
  double rho = 0;  // max over the non-consensus eigenvalues λ_j of W
  for (int j = 1; j < n; ++j)
    rho = std::max(rho, std::abs(1 - gamma * (1 - (1.0 / 3 + 2.0 / 3 * std::cos(2 * pi * j / n)))));
  const auto error = [](const Eigen::MatrixXd& x, const Eigen::RowVectorXd& mean) {
    return (x.rowwise() - mean).norm();
  };
  SECTION("identity compressor: never slower than rho^K, exactly rho^K on the slowest mode") {
    Eigen::MatrixXd random = Eigen::MatrixXd::Random(n, d), slowest(n, d);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) slowest(i, c) = (c + 1) * std::cos(2 * pi * i / n) + c;
    for (const bool slow : {false, true}) {
      INFO((slow ? "slowest eigenvector" : "random start"));
      const Eigen::MatrixXd& x0 = slow ? slowest : random;
      const Eigen::RowVectorXd mean = x0.colwise().mean();
      Network net(w, x0, {gamma}, ChocoOrder::adagossip);
      const double e0 = error(x0, mean);
      for (int k = 0; k <= 300; ++k) {
        net.iterate(k, kIdentity);
        const double e = error(net.models(), mean), bound = std::pow(rho, k) * e0;
        REQUIRE(e <= bound * (1 + 1e-9) + 1e-12);  // + the rounding floor
        if (slow && k == 100) CHECK(e == Approx(bound).epsilon(1e-9));
      }
      CHECK((net.models().rowwise() - mean).cwiseAbs().maxCoeff() < 1e-11);
    }
  }
  SECTION("top-k keeping 3 of 6 coordinates: linear convergence to the true average") {
    const Eigen::MatrixXd x0 = Eigen::MatrixXd::Random(n, d);
    const Eigen::RowVectorXd mean = x0.colwise().mean();
    Network net(w, x0, {0.3}, ChocoOrder::adagossip);
    std::vector<double> errors;
    for (int k = 0; k <= 400; ++k) {
      net.iterate(k, top_k(0.5));
      if (k % 200 == 0) errors.push_back(error(net.models(), mean));
    }
    INFO("errors " << errors[0] << " " << errors[1] << " " << errors[2]);
    CHECK(errors[2] < 1e-10 * errors[0]);
    // linear: the second half contracts at least half as much (in log) as the first
    CHECK(std::log(errors[2] / errors[1]) < 0.5 * std::log(errors[1] / errors[0]));
  }
}

TEST_CASE("CHOCO forgets a failed neighbour: its weight to w_ii, its copy out of s_i", "[choco]") {
  // Node 0 of a 4-ring (w = 1/3) hears from 1 and 3; 3 fails after one message.
  ChocoNode node(Vector::Zero(2), 1.0 / 3, {1.0 / 3, 1.0 / 3}, {1.0}, ChocoOrder::adagossip, true);
  node.receive(0, (Vector(2) << 3, 6).finished());   // x̂_1
  node.receive(1, (Vector(2) << 9, -3).finished());  // x̂_3
  node.forget(1);                                    // 3 failed
  CHECK(node.self_weight() == Approx(2.0 / 3));
  node.receive(0, (Vector(2) << 3, 0).finished());  // x̂_1 = (6, 6)
  node.consensus();  // r = (1/3) x̂_1 + (2/3 − 1) x̂_0 with x̂_0 = 0
  CHECK(node.model()[0] == Approx(2.0));
  CHECK(node.model()[1] == Approx(2.0));
  CHECK_THROWS(ChocoNode(Vector::Zero(2), 0.5, {0.5}, {1.0}, ChocoOrder::adagossip).forget(0));
}
