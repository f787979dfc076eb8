// Gradient tracking (gradient_tracking.cpp) through the simulator, against the exact
// optimum of the same problem computed independently: least squares on label-skewed
// shards (partition sorted), full local gradients, a constant step.
//  - every DIGing worker's model is x* to a relative error below 1e-8;
//  - D-PSGD with the same step stalls at a visible bias (relative error above 1e-3).
// x* solves the normal equations H x* = −∇f(0), with H's columns read off the
// objective's exact gradient (least squares is quadratic: H e_j = ∇f(e_j) − ∇f(0)).
// The final models come from a metrics observer (RunOptions::observers).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <numeric>

#include <unistd.h>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "sim/metrics/observer.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"

namespace {

using nlohmann::json;

json shipped_scenario() {
  std::ifstream in(std::string(EXAMPLE_DIR) + "/gradient_tracking.json");
  return json::parse(in);
}

// x* of the scenario's objective on its training set.
Eigen::VectorXd optimum(const json& doc) {
  const dlsim::sim::PreparedRun p = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  const auto& objective = *p.objective;
  const auto& train = p.data->train;
  std::vector<Eigen::Index> rows(std::size_t(train.size()));
  std::iota(rows.begin(), rows.end(), Eigen::Index(0));
  const Eigen::Index d = objective.dimension();
  Eigen::VectorXd g0, gj;
  objective.gradient(Eigen::VectorXd::Zero(d), train, rows, g0);
  Eigen::MatrixXd H(d, d);
  for (Eigen::Index j = 0; j < d; ++j) {
    objective.gradient(Eigen::VectorXd::Unit(d, j), train, rows, gj);
    H.col(j) = gj - g0;
  }
  return H.ldlt().solve(-g0);
}

// Keeps the models of the last metrics row.
struct LastModels final : dlsim::sim::MetricsObserver {
  std::vector<Eigen::VectorXd> models;
  void on_row(const dlsim::sim::MetricsRow&) override {}
  void on_models(const dlsim::sim::MetricsRow&, std::span<const Eigen::VectorXd> m,
                 std::span<const int>) override {
    models.assign(m.begin(), m.end());
  }
};

json run(json doc, const std::string& kind, dlsim::sim::MetricsObserver* extra = nullptr) {
  doc["algorithm"]["kind"] = kind;
  dlsim::sim::PreparedRun p = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  dlsim::sim::RunOptions options;
  options.out_dir = std::filesystem::temp_directory_path() /
                    ("dlsim-gradient-tracking-" + kind + "-" + std::to_string(::getpid()));
  if (extra) options.observers.push_back(extra);
  const json summary = dlsim::sim::run(p, options);
  std::filesystem::remove_all(options.out_dir);
  return summary;
}

// The largest relative error ||x_i − x*|| / ||x*|| over the workers' final models.
double worst_relative_error(const json& doc, const std::string& kind,
                            const Eigen::VectorXd& x_star) {
  LastModels last;
  const json summary = run(doc, kind, &last);
  REQUIRE(summary["final"]["iteration"] == doc["stop"]["iterations"]);
  REQUIRE(last.models.size() == std::size_t(doc["workers"].get<int>()));
  double worst = 0;
  for (const auto& x : last.models) worst = std::max(worst, (x - x_star).norm() / x_star.norm());
  return worst;
}

}  // namespace

TEST_CASE("gradient tracking reaches the exact optimum where D-PSGD stalls", "[examples]") {
  const json doc = shipped_scenario();
  const Eigen::VectorXd x_star = optimum(doc);
  const double tracking = worst_relative_error(doc, "gradient-tracking", x_star);
  const double dpsgd = worst_relative_error(doc, "dpsgd", x_star);
  INFO("relative model error after 1000 rounds: gradient tracking " << tracking << ", D-PSGD "
                                                                    << dpsgd);
  CHECK(tracking < 1e-8);
  CHECK(dpsgd > 1e-3);
}

TEST_CASE("gradient tracking sends one [x; y] message per neighbour and round", "[examples]") {
  json doc = shipped_scenario();
  doc["stop"] = {{"iterations", 5}};
  const json summary = run(doc, "gradient-tracking");
  // 8 workers on a ring, 2 neighbours each, 5 rounds; 2·(10 + 1 bias) binary64 values.
  CHECK(summary["totals"]["messages"] == 8 * 2 * 5);
  CHECK(summary["totals"]["bits_total"] == 8 * 2 * 5 * 64 * 2 * 11);
}

TEST_CASE("gradient tracking refuses what DIGing does not define", "[examples]") {
  json doc = shipped_scenario();
  doc["algorithm"]["momentum"] = 0.9;
  try {
    (void)dlsim::sim::load_scenario(doc);
    FAIL("momentum accepted");
  } catch (const dlsim::sim::InputError& e) {
    CHECK(e.where() == "algorithm.momentum");
  }
}
