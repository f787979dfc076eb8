// CHOCO-SGD, CHOCO-gossip and D-PSGD through the runner, on pure averaging (model
// `consensus`, zero gradients) where the answers are known:
//   - with symmetric doubly stochastic W the average of the models never moves: the
//     evaluator's train_loss (1/n)Σ||x_i − x̄⁰||² equals the consensus distance
//     (1/n)Σ||x_i − x̄||² plus ||x̄ − x̄⁰||², so the two must agree to rounding (not
//     AdaG: each node scales r_i by its own γ_i, so Σ_i γ_i ⊙ r_i ≠ 0 and the average
//     drifts; adag_test.cpp checks its rule instead);
//   - CHOCO-gossip with top-k contracts the consensus distance linearly (Koloskova et
//     al. 2019, Theorem 2): the second half of the run contracts about as much as the
//     first, down to 1e-12 with no floor;
//   - one-peer-exponential averages exactly in log2(n) rounds (docs/algorithms.md §4);
//   - every CHOCO message is one top-k encoding: bits = messages · k(32 + ⌈log2 d⌉).
#include <catch2/catch.hpp>

#include <cmath>

#include "gossip_helpers.hpp"
#include "run_helpers.hpp"

using dlsim::test::averaging_scenario;
using dlsim::test::metrics_column;
using nlohmann::json;

namespace {

const json kTorus = {{"kind", "torus"}, {"dims", {4, 4}}};

json top_k(double ratio) {
  return {{"kind", "top-k"}, {"ratio", ratio}};
}

}  // namespace

TEST_CASE("CHOCO keeps the average of the models exactly", "[choco]") {
  struct Case {
    std::string name;
    json algorithm;
  };
  const std::vector<Case> cases = {
      {"choco-sgd top-k",
       {{"kind", "choco-sgd"}, {"consensus_step", 0.2}, {"compressor", top_k(0.9)}}},
      {"choco-sgd choco-paper qsgd",
       {{"kind", "choco-sgd"},
        {"order", "choco-paper"},
        {"consensus_step", 0.3},
        {"compressor", {{"kind", "qsgd"}, {"levels", 4}}}}},
      {"choco-gossip random-k",
       {{"kind", "choco-gossip"},
        {"consensus_step", 0.1},
        {"compressor", {{"kind", "random-k"}, {"ratio", 0.75}}}}},
      {"choco-gossip none", {{"kind", "choco-gossip"}}},
  };
  for (const Case& c : cases) {
    INFO(c.name);
    json s = averaging_scenario("", kTorus, 16, 40, 60, 5);
    s["algorithm"] = c.algorithm;
    const auto out = dlsim::test::run_scenario(s, "choco-average");
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
    REQUIRE(loss.size() == 13);
    for (std::size_t r = 0; r < loss.size(); ++r) {
      INFO("row " << r);
      CHECK(std::abs(loss[r] - distance[r]) <= 1e-12 * loss[0]);
    }
    CHECK(distance.back() < 0.5 * distance.front());  // and the models did move
  }
}

TEST_CASE("D-PSGD keeps the average up to the fp32 rounding of its messages", "[choco]") {
  const auto out = dlsim::test::run_scenario(averaging_scenario("dpsgd", kTorus, 16, 40, 60, 5),
                                             "dpsgd-average");
  const auto loss = metrics_column(out.metrics_csv, "train_loss");
  const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
  // ||x̄ − x̄⁰||² with per-round errors of 2^-24 relative: far below 1e-10 of the start
  for (std::size_t r = 0; r < loss.size(); ++r)
    CHECK(std::abs(loss[r] - distance[r]) <= 1e-10 * loss[0]);
  CHECK(distance.back() < 1e-6 * distance.front());
}

TEST_CASE("CHOCO-gossip with top-k converges linearly on a torus", "[choco]") {
  json s = averaging_scenario("choco-gossip", kTorus, 16, 50, 600, 300);
  s["algorithm"]["consensus_step"] = 0.15;
  s["algorithm"]["compressor"] = top_k(0.9);
  const auto out = dlsim::test::run_scenario(s, "choco-linear");
  const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
  REQUIRE(distance.size() == 3);
  const double first_half = std::log(distance[1] / distance[0]);
  const double second_half = std::log(distance[2] / distance[1]);
  INFO("log contraction per half: " << first_half << ", " << second_half);
  CHECK(distance[2] < 1e-12 * distance[0]);
  CHECK(distance[2] > 0);
  // linear: the second half contracts at least half as much (in log) as the first; a
  // sublinear (1/t) decay or a rounding floor would contract far less
  CHECK(second_half < 0.5 * first_half);
}

TEST_CASE("one-peer-exponential averages exactly in log2(n) rounds", "[choco]") {
  const json graph = {{"kind", "one-peer-exponential"}};
  const auto out =
      dlsim::test::run_scenario(averaging_scenario("dpsgd", graph, 16, 30, 4), "one-peer");
  const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
  REQUIRE(distance.size() == 5);
  CHECK(distance[3] > 1e-3 * distance[0]);  // three rounds are not enough
  // four rounds: exactly (1/n)11ᵀ up to the fp32 rounding of the messages (2^-24)
  CHECK(distance[4] < 1e-13 * distance[0]);
}

TEST_CASE("CHOCO's bits are one top-k encoding per message", "[choco]") {
  for (const std::string order : {"adagossip", "choco-paper"}) {
    INFO(order);
    json s = averaging_scenario("choco-sgd", {{"kind", "ring"}}, 16, 100, 25, 25);
    s["algorithm"]["order"] = order;
    s["algorithm"]["compressor"] = {{"kind", "top-k"}, {"k", 10}};
    const auto out = dlsim::test::run_scenario(s, "choco-bits");
    const json& totals = out.summary["totals"];
    // every node sends to its 2 ring neighbours every round
    CHECK(totals["messages"].get<std::int64_t>() == 25 * 16 * 2);
    // k (32 + ceil(log2 100)) = 10 (32 + 7)
    CHECK(totals["bits_total"].get<std::int64_t>() == 25 * 16 * 2 * 390);
  }
}

// random-matching gives every node a new partner each round: partners disappear and
// come back. Per-neighbour copies must stay consistent for the average to stay put and
// for the models to keep converging (a stale or reset copy breaks both).
TEST_CASE("per-neighbour copies survive partners leaving and coming back", "[choco]") {
  for (const std::string kind : {"choco-gossip", "choco-sgd"}) {
    INFO(kind);
    json s = averaging_scenario(kind, {{"kind", "random-matching"}}, 8, 30, 300, 100);
    s["algorithm"]["consensus_step"] = 0.3;
    s["algorithm"]["compressor"] = top_k(0.7);
    const auto out = dlsim::test::run_scenario(s, "choco-matching");
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
    REQUIRE(loss.size() == 4);
    for (std::size_t r = 0; r < loss.size(); ++r)
      CHECK(std::abs(loss[r] - distance[r]) <= 1e-12 * loss[0]);
    CHECK(distance[3] < 1e-6 * distance[0]);
    // 300 rounds of random matchings on 8 nodes: everyone has met everyone (7 partners)
    CHECK(out.summary["gossip_memory"]["vectors_total"].get<std::int64_t>() == 8 * 7 * 2);
  }
}
