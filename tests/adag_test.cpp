// AdaG-SGD's consensus step against a hand computation on two nodes (complete graph,
// w = 1/2, one coordinate, compressor none, zero gradients). With δ = x_1 − x_2 both
// nodes see |r| = |δ|/2, so in round k ≥ 1 (docs/algorithms.md §3):
//   v_k = β v_{k−1} + (1 − β) δ²/4;  v̂ = v_k / (1 − β^k);  γ_k = min(γ/(√v̂ + ε), 1);
//   δ ← (1 − γ_k) δ,  and the consensus distance is δ²/4 (0 up to rounding once γ_k = 1).
// Round 0 only sends the first copies; the metrics row after round k+1 shows δ_k.
#include <catch2/catch.hpp>

#include <cmath>

#include "gossip_helpers.hpp"
#include "run_helpers.hpp"

using dlsim::test::averaging_scenario;
using dlsim::test::metrics_column;
using nlohmann::json;

namespace {

std::vector<double> adag_two_nodes(double gamma, double beta, int rounds) {
  json s = averaging_scenario("adag-sgd", {{"kind", "complete"}}, 2, 1, rounds);
  s["algorithm"]["consensus_step"] = gamma;
  s["algorithm"]["beta"] = beta;
  return metrics_column(dlsim::test::run_scenario(s, "adag-two").metrics_csv, "consensus_distance");
}

}  // namespace

TEST_CASE("AdaG with beta 0 and a large gamma averages in one step", "[adag]") {
  const auto distance = adag_two_nodes(1e6, 0.0, 3);
  REQUIRE(distance.size() == 4);
  CHECK(distance[1] == distance[0]);         // round 0 only sends copies
  CHECK(distance[2] < 1e-12 * distance[0]);  // γ_1 clamps to 1: x_i ← x_i + r_i
}

TEST_CASE("AdaG's adaptive step follows the formula on two nodes", "[adag]") {
  for (const double beta : {0.0, 0.5, 0.999}) {
    INFO("beta " << beta);
    const double gamma = 0.02, epsilon = 1e-8;
    const auto distance = adag_two_nodes(gamma, beta, 30);
    REQUIRE(distance.size() == 31);
    double delta = 2 * std::sqrt(distance[0]), v = 0;
    for (int k = 1; k < 30; ++k) {
      v = beta * v + (1 - beta) * delta * delta / 4;
      const double v_hat = v / (1 - std::pow(beta, k));
      const double step = std::min(gamma / (std::sqrt(v_hat) + epsilon), 1.0);
      delta *= 1 - step;
      INFO("round " << k);
      if (delta * delta / 4 < 1e-12 * distance[0]) {
        // The step has clamped to 1 (both nodes average exactly): zero up to rounding,
        // the criterion of the test above.
        CHECK(distance[std::size_t(k) + 1] < 1e-12 * distance[0]);
      } else {
        CHECK(distance[std::size_t(k) + 1] == Approx(delta * delta / 4).epsilon(1e-5));
      }
    }
    CHECK(distance.back() < distance.front());
  }
}
