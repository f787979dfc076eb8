// The consensus model: per-worker starts from the seed, the loss against the true
// initial average, zero gradients, and the evaluator reporting that loss.
#include <catch2/catch.hpp>

#include "models/objectives/consensus.hpp"
#include "sim/metrics/evaluator.hpp"

using namespace dlsim::models;

TEST_CASE("consensus: every worker starts from its own vector; x̄⁰ is their mean") {
  std::mt19937_64 rng(1);
  const Consensus f(5, 4, rng);
  const auto starts = f.worker_starts();
  REQUIRE(starts.size() == 4);
  Vector mean = Vector::Zero(5);
  for (const Vector& z : starts) {
    CHECK(z.size() == 5);
    mean += z / 4.0;
  }
  CHECK(starts[0] != starts[1]);
  std::mt19937_64 unused(9);
  CHECK((f.initial_point(unused) - mean).norm() < 1e-15);
  std::mt19937_64 again(1);
  const Consensus g(5, 4, again);
  CHECK(g.worker_starts()[3] == starts[3]);
}

TEST_CASE("consensus: loss of the models is (1/n) Σ ||x_i − x̄⁰||²") {
  std::mt19937_64 rng(2);
  const Consensus f(3, 3, rng);
  const std::vector<Vector> starts(f.worker_starts().begin(), f.worker_starts().end());
  double expected = 0;
  std::mt19937_64 unused(0);
  const Vector mean = f.initial_point(unused);
  for (const Vector& z : starts) expected += (z - mean).squaredNorm() / 3.0;
  CHECK(*f.loss_of_models(starts) == Approx(expected).epsilon(1e-14));
  // Perfect averaging: every node holds x̄⁰, loss 0.
  const std::vector<Vector> averaged(3, mean);
  CHECK(*f.loss_of_models(averaged) == 0.0);
  // Averages that drifted away from x̄⁰ are penalized even when they agree.
  const std::vector<Vector> drifted(3, mean + Vector::Ones(3));
  CHECK(*f.loss_of_models(drifted) == Approx(3.0));
}

TEST_CASE("consensus: zero gradient and no cost") {
  std::mt19937_64 rng(3);
  const Consensus f(4, 2, rng);
  Vector g;
  f.gradient(Vector::Ones(4), Dataset{}, {}, g);
  CHECK(g == Vector::Zero(4));
  CHECK(f.gradient_cost(32).flops == 0.0);
}

TEST_CASE("consensus: the evaluator reports loss_of_models as train_loss") {
  std::mt19937_64 rng(4);
  const Consensus f(6, 4, rng);
  const dlsim::sim::Evaluator evaluator(f, nullptr, nullptr, true);
  const std::vector<Vector> starts(f.worker_starts().begin(), f.worker_starts().end());
  const auto e = evaluator.evaluate(starts);
  REQUIRE(e.train_loss);
  CHECK(*e.train_loss == Approx(*f.loss_of_models(starts)).epsilon(1e-15));
  // At the start, x̄ = x̄⁰, so the consensus distance equals the loss.
  CHECK(*e.consensus_distance == Approx(*e.train_loss).epsilon(1e-12));
  CHECK(!e.test_accuracy);
}
