// SGP (push-sum) on pure averaging: with column-stochastic push weights Σ x_i and Σ w_i
// are conserved, so the de-biased models z_i = x_i / w_i converge to the TRUE average
// x̄⁰ (train_loss of the consensus model is (1/n)Σ||z_i − x̄⁰||²), on directed and
// time-varying graphs alike. Messages are fp32 [x; w]: 32(d + 1) bits each.
#include <catch2/catch.hpp>

#include "gossip_helpers.hpp"
#include "run_helpers.hpp"

using dlsim::test::averaging_scenario;
using dlsim::test::metrics_column;
using nlohmann::json;

TEST_CASE("push-sum converges to the true average on directed and time-varying graphs", "[sgp]") {
  for (const std::string kind :
       {"directed-exponential", "directed-ring", "one-peer-exponential", "random-matching"}) {
    INFO(kind);
    // directed ring, weights 1/2: |λ2| = cos(π/16) ≈ 0.981, so 1e-12 takes ~1400 rounds
    const int rounds = kind == "directed-ring" ? 1600 : 80;
    const auto out = dlsim::test::run_scenario(
        averaging_scenario("sgp", {{"kind", kind}}, 16, 20, rounds, rounds), "sgp");
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    REQUIRE(loss.size() == 2);
    CHECK(loss[1] < 1e-12 * loss[0]);
  }
}

TEST_CASE("push-sum on one-peer-exponential is exact after log2(n) rounds", "[sgp]") {
  const auto out = dlsim::test::run_scenario(
      averaging_scenario("sgp", {{"kind", "one-peer-exponential"}}, 8, 5, 3), "sgp-exact");
  const auto loss = metrics_column(out.metrics_csv, "train_loss");
  REQUIRE(loss.size() == 4);
  CHECK(loss[2] > 1e-3 * loss[0]);
  CHECK(loss[3] < 1e-13 * loss[0]);
}

TEST_CASE("push-sum messages are fp32 [x; w]", "[sgp]") {
  const auto out = dlsim::test::run_scenario(
      averaging_scenario("sgp", {{"kind", "directed-exponential"}}, 8, 10, 7, 7), "sgp-bits");
  const json& totals = out.summary["totals"];
  // directed-exponential on 8 nodes: out-neighbours +1, +2, +4
  CHECK(totals["messages"].get<std::int64_t>() == 7 * 8 * 3);
  CHECK(totals["bits_total"].get<std::int64_t>() == 7 * 8 * 3 * 32 * 11);
}
