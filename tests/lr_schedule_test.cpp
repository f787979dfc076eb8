// Learning-rate schedules (sim/algorithms/lr_schedule.hpp): exact step sizes at the
// milestone and warm-up boundaries, and end to end, that a run follows the schedule
// exactly from the milestone on and is unchanged before it.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

#include "run_helpers.hpp"
#include "sim/algorithms/lr_schedule.hpp"

namespace {

using dlsim::sim::AlgorithmSpec;
using dlsim::sim::step_size_at;

AlgorithmSpec step_schedule(std::vector<double> milestones, double factor, double warmup = 0) {
  AlgorithmSpec a;
  a.step_size = 0.8;
  a.schedule.kind = "step";
  a.schedule.milestones = std::move(milestones);
  a.schedule.factor = factor;
  a.schedule.warmup = warmup;
  return a;
}

// One column of metrics.csv, by header name, as text (exact comparison).
std::vector<std::string> column(const std::string& csv, const std::string& name) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::istringstream h(line);
    std::string cell;
    while (std::getline(h, cell, ',')) header.push_back(cell);
  }
  std::size_t index = header.size();
  for (std::size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) index = i;
  REQUIRE(index < header.size());
  std::vector<std::string> values;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (std::size_t i = 0; i <= index; ++i) std::getline(row, cell, ',');
    values.push_back(cell);
  }
  return values;
}

}  // namespace

TEST_CASE("constant schedule: the step size everywhere") {
  AlgorithmSpec a;
  a.step_size = 0.25;
  for (std::int64_t k : {0, 1, 49, 50, 99}) CHECK(step_size_at(a, k, 100) == 0.25);
}

TEST_CASE("step schedule: the factor applies from the milestone iteration on") {
  const AlgorithmSpec a = step_schedule({0.5, 0.75}, 0.1);
  // T = 100: milestones at iterations 50 and 75.
  CHECK(step_size_at(a, 0, 100) == 0.8);
  CHECK(step_size_at(a, 49, 100) == 0.8);
  CHECK(step_size_at(a, 50, 100) == 0.8 * 0.1);
  CHECK(step_size_at(a, 74, 100) == 0.8 * 0.1);
  CHECK(step_size_at(a, 75, 100) == 0.8 * 0.1 * 0.1);
  CHECK(step_size_at(a, 99, 100) == 0.8 * 0.1 * 0.1);
  // T = 10: milestones round(5) = 5 and round(7.5) = 8 (half away from zero).
  CHECK(step_size_at(a, 4, 10) == 0.8);
  CHECK(step_size_at(a, 5, 10) == 0.8 * 0.1);
  CHECK(step_size_at(a, 7, 10) == 0.8 * 0.1);
  CHECK(step_size_at(a, 8, 10) == 0.8 * 0.1 * 0.1);
  // 0.29 * 100 is 28.999999999999996 in binary: rounding, not truncation, gives 29.
  const AlgorithmSpec b = step_schedule({0.29}, 0.5);
  CHECK(step_size_at(b, 28, 100) == 0.8);
  CHECK(step_size_at(b, 29, 100) == 0.4);
}

TEST_CASE("warm-up: linear from step/W to the step over W iterations") {
  SECTION("in iterations") {
    AlgorithmSpec a;
    a.step_size = 0.8;
    a.schedule.warmup = 4;
    CHECK(step_size_at(a, 0, 100) == 0.8 * 1 / 4);
    CHECK(step_size_at(a, 1, 100) == 0.8 * 2 / 4);
    CHECK(step_size_at(a, 3, 100) == 0.8);
    CHECK(step_size_at(a, 4, 100) == 0.8);
    // iterations do not depend on the run's length (also unbounded runs)
    CHECK(step_size_at(a, 1, std::numeric_limits<std::int64_t>::max()) == 0.8 * 2 / 4);
  }
  SECTION("as a fraction of the run, combined with step decay") {
    const AlgorithmSpec a = step_schedule({0.5}, 0.5, 0.1);  // T = 20: W = 2, milestone 10
    CHECK(step_size_at(a, 0, 20) == 0.8 * 1 / 2);
    CHECK(step_size_at(a, 1, 20) == 0.8);
    CHECK(step_size_at(a, 9, 20) == 0.8);
    CHECK(step_size_at(a, 10, 20) == 0.4);
  }
  SECTION("no warm-up when warmup is 0") {
    AlgorithmSpec a;
    a.step_size = 0.8;
    CHECK(step_size_at(a, 0, 10) == 0.8);
  }
}

namespace {

nlohmann::json least_squares_run(const std::string& kind, const nlohmann::json& schedule,
                                 const std::string& collective = "",
                                 const std::string& topology = "ring") {
  nlohmann::json algorithm = {
      {"kind", kind}, {"step_size", 0.05}, {"batch_size", 8}, {"schedule", schedule}};
  if (!collective.empty()) algorithm["collective"] = collective;
  return {{"seed", 5},
          {"workers", 2},
          {"data", {{"samples", 200}, {"features", 5}}},
          {"model", {{"kind", "least-squares"}}},
          {"algorithm", algorithm},
          {"topology", {{"kind", topology}}},
          {"stop", {{"iterations", 20}}},
          {"metrics", {{"every", {{"iterations", 1}}}}}};
}

}  // namespace

TEST_CASE("end to end: a step schedule changes the run exactly from its milestone") {
  // Every call site of the local step: the three sgd collectives, svrg, and the
  // decentralized dpsgd, choco-sgd (static and time-varying graphs) and sgp.
  struct Case {
    std::string kind, collective, topology;
  };
  const std::vector<Case> runs = {{"sgd", "parameter-server", "ring"},
                                  {"sgd", "allgather", "ring"},
                                  {"sgd", "ring-allreduce", "ring"},
                                  {"svrg", "", "ring"},
                                  {"dpsgd", "", "ring"},
                                  {"choco-sgd", "", "ring"},
                                  {"choco-sgd", "", "random-matching"},
                                  {"sgp", "", "ring"}};
  for (const Case& c : runs) {
    INFO(c.kind << " " << c.collective << " " << c.topology);
    const auto constant = dlsim::test::run_scenario(
        least_squares_run(c.kind, {{"kind", "constant"}}, c.collective, c.topology), "lr-constant");
    const auto stepped = dlsim::test::run_scenario(
        least_squares_run(c.kind, {{"kind", "step"}, {"milestones", {0.5}}, {"factor", 0.5}},
                          c.collective, c.topology),
        "lr-step");
    const auto a = column(constant.metrics_csv, "train_loss");
    const auto b = column(stepped.metrics_csv, "train_loss");
    const auto iterations = column(stepped.metrics_csv, "iteration");
    REQUIRE(a.size() == 21);
    REQUIRE(b.size() == 21);
    // Row k is the model after k steps; step 10 (0-based) is the first with step/2.
    for (std::size_t k = 0; k < a.size(); ++k) {
      INFO("row " << k << " iteration " << iterations[k]);
      CHECK(iterations[k] == std::to_string(k));
      if (k <= 10)
        CHECK(a[k] == b[k]);
      else
        CHECK(a[k] != b[k]);
    }
  }
}

TEST_CASE("end to end: warm-up in iterations changes the run from its first step") {
  const auto constant =
      dlsim::test::run_scenario(least_squares_run("sgd", {{"kind", "constant"}}), "lr-c");
  const auto warm = dlsim::test::run_scenario(
      least_squares_run("sgd", {{"kind", "constant"}, {"warmup", 3}}), "lr-w");
  const auto a = column(constant.metrics_csv, "train_loss");
  const auto b = column(warm.metrics_csv, "train_loss");
  REQUIRE(a.size() == b.size());
  CHECK(a[0] == b[0]);
  for (std::size_t k = 1; k < a.size(); ++k) CHECK(a[k] != b[k]);
}
