// Test helpers for the SVRG family (svrg_test, lpc_svrg_test, alpc_svrg_test): a small
// least-squares scenario, its data as the runner prepares it, and metrics.csv columns.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include "run_helpers.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"

namespace dlsim::test {

/// Regression data b = A w* (+ noise) with 4 workers; `algorithm` and `model` filled in.
inline nlohmann::json svrg_regression(nlohmann::json algorithm, int iterations, double noise = 0.0,
                                      nlohmann::json model = {{"kind", "least-squares"},
                                                              {"bias", false}}) {
  return nlohmann::json{{"workers", 4},
                        {"seed", 7},
                        {"data",
                         {{"source", "synthetic-regression"},
                          {"samples", 400},
                          {"features", 6},
                          {"noise", noise},
                          {"condition", 4}}},
                        {"model", model},
                        {"algorithm", algorithm},
                        {"network", {{"header", "40B"}}},
                        {"stop", {{"iterations", iterations}}},
                        {"metrics", {{"every", {{"iterations", 10}}}}}};
}

/// The training set and shards exactly as `dlsim run` builds them for `doc`.
inline sim::PreparedRun prepared(const nlohmann::json& doc) {
  return sim::prepare(sim::load_scenario(doc));
}

struct MetricsRow {
  std::int64_t iteration = 0;
  std::uint64_t bits_total = 0;
  std::uint64_t messages = 0;
  double train_loss = 0;
};

/// The rows of metrics.csv (columns: time_s, iteration, epoch, bits_total, bytes_wire,
/// messages, train_loss, ...).
inline std::vector<MetricsRow> metrics_rows(const std::string& csv) {
  std::vector<MetricsRow> rows;
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    MetricsRow r;
    r.iteration = std::stoll(cells.at(1));
    r.bits_total = std::stoull(cells.at(3));
    r.messages = std::stoull(cells.at(5));
    r.train_loss = std::stod(cells.at(6));
    rows.push_back(r);
  }
  return rows;
}

/// λmin and the minimizer of (1/2N)||Aw − b||² + (l2/2)||w||² from the normal equations.
struct NormalEquations {
  Eigen::VectorXd minimizer;
  double lambda_min = 0;
  double lambda_max = 0;
};
inline NormalEquations solve_normal_equations(const Eigen::MatrixXd& A, const Eigen::VectorXd& b,
                                              double l2) {
  const double N = double(A.rows());
  const Eigen::MatrixXd H =
      A.transpose() * A / N + l2 * Eigen::MatrixXd::Identity(A.cols(), A.cols());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(H);
  return {H.ldlt().solve(A.transpose() * b / N), eig.eigenvalues().minCoeff(),
          eig.eigenvalues().maxCoeff()};
}

}  // namespace dlsim::test
