// SVRG and prox-SVRG through the runner (sim/algorithms/svrg.cpp): linear convergence to
// the least-squares optimum of the normal equations, the lasso solution of coordinate
// descent, exact bit counts, and the sgd aliases qsgd and ef-sgd.
#include <catch2/catch.hpp>

#include <cmath>

#include "sim/scenario/input_error.hpp"
#include "svrg_helpers.hpp"

using dlsim::test::metrics_rows;
using nlohmann::json;

namespace {

json svrg(const std::string& collective, json extra = json::object()) {
  json a = {{"kind", "svrg"}, {"collective", collective}, {"step_size", 0.2}, {"batch_size", 10}};
  a.update(extra);
  return a;
}

// ||x − x*|| / ||x*|| from the loss gap: f(x) − f* ≥ (λmin/2)||x − x*||² (f* from the
// normal equations).
double relative_distance_bound(const json& doc, double loss) {
  const auto run = dlsim::test::prepared(doc);
  const auto& train = run.data->train;
  const auto ne = dlsim::test::solve_normal_equations(train.features.view(), train.labels, 0.0);
  const double f_star = run.objective->loss(ne.minimizer, train);
  return std::sqrt(2 * std::max(loss - f_star, 0.0) / ne.lambda_min) / ne.minimizer.norm();
}

std::string error_path(const json& doc) {
  try {
    dlsim::sim::load_scenario(doc);
  } catch (const dlsim::sim::InputError& e) {
    return e.where();
  }
  return "";
}

}  // namespace

TEST_CASE("SVRG converges linearly to the least-squares optimum over every collective", "[svrg]") {
  for (const std::string collective : {"parameter-server", "allgather", "ring-allreduce"}) {
    for (const std::string snapshot : {"last", "average"}) {
      INFO(collective << " snapshot " << snapshot);
      // averaged snapshots contract more slowly (Johnson & Zhang's option II)
      const bool last = snapshot == "last";
      const int iterations = last ? 600 : 1500;
      const double factor = last ? 0.05 : 0.3;
      const json doc =
          dlsim::test::svrg_regression(svrg(collective, {{"snapshot", snapshot}}), iterations);
      const auto rows = metrics_rows(dlsim::test::run_scenario(doc, "svrg").metrics_csv);
      REQUIRE(rows.back().iteration == iterations);
      CHECK(relative_distance_bound(doc, rows.back().train_loss) <= 1e-8);
      // linear: the loss gap (f* = 0 here) shrinks by a constant factor per 100 steps
      for (std::size_t r = 10; r + 10 < rows.size(); r += 10) {
        INFO("iteration " << rows[r].iteration);
        CHECK((rows[r + 10].train_loss <= factor * rows[r].train_loss ||
               rows[r + 10].train_loss < 1e-28));
      }
    }
  }
}

TEST_CASE("prox-SVRG reaches the lasso solution that coordinate descent finds", "[svrg]") {
  const double l1 = 0.5;
  const json model = {{"kind", "least-squares"}, {"bias", false}, {"l1", l1}};
  const json doc = dlsim::test::svrg_regression(svrg("allgather"), 800, 0.3, model);
  const auto run = dlsim::test::prepared(doc);
  const Eigen::MatrixXd& A = run.data->train.features.view();
  const Eigen::VectorXd& b = run.data->train.labels;
  const double N = double(A.rows());
  // cyclic coordinate descent: w_j ← S(A_jᵀ r_j / N, λ1) / (||A_j||² / N)
  Eigen::VectorXd w = Eigen::VectorXd::Zero(A.cols()), residual = b;
  for (int sweep = 0; sweep < 5000; ++sweep) {
    for (Eigen::Index j = 0; j < A.cols(); ++j) {
      residual += A.col(j) * w(j);
      const double rho = A.col(j).dot(residual) / N, curvature = A.col(j).squaredNorm() / N;
      w(j) = (rho > l1 ? rho - l1 : rho < -l1 ? rho + l1 : 0.0) / curvature;
      residual -= A.col(j) * w(j);
    }
  }
  const double lasso = run.objective->loss(w, run.data->train);
  const auto rows = metrics_rows(dlsim::test::run_scenario(doc, "prox-svrg").metrics_csv);
  CHECK(std::abs(rows.back().train_loss - lasso) <= 1e-12 * lasso);
  CHECK((w.array() == 0).any());  // the l1 term is active: some coordinate is exactly 0
}

TEST_CASE("SVRG's bits: per epoch one fp32 snapshot round, then one round per inner step",
          "[svrg]") {
  // d = 6, n = 4, T = 400 / (4·10) = 10, 95 iterations: 10 epochs begin
  const std::uint64_t d = 6, n = 4, K = 95, epochs = 10, fp32 = 32 * d;
  SECTION("parameter-server: n uplinks + n downlinks per round") {
    const auto out =
        dlsim::test::run_scenario(dlsim::test::svrg_regression(svrg("parameter-server"), 95));
    const auto& totals = out.summary["totals"];
    CHECK(totals["bits_total"].get<std::uint64_t>() == (K + epochs) * 2 * n * fp32);
    CHECK(totals["messages"].get<std::uint64_t>() == (K + epochs) * 2 * n);
  }
  SECTION("allgather: n(n-1) transfers per round; epoch_length 7") {
    const auto out = dlsim::test::run_scenario(
        dlsim::test::svrg_regression(svrg("allgather", {{"epoch_length", 7}}), 95));
    const std::uint64_t epochs7 = (K + 6) / 7;
    CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() ==
          (K + epochs7) * n * (n - 1) * fp32);
  }
  SECTION("compressed uplink, compressed downlink aggregate") {
    json a = svrg("parameter-server", {{"compressor", {{"kind", "lpc"}, {"bits", 3}}},
                                       {"downlink_compressor", {{"kind", "fp16"}}}});
    const auto out = dlsim::test::run_scenario(dlsim::test::svrg_regression(a, 95));
    const std::uint64_t inner = n * (32 + 3 * d) + n * 16 * d, snapshot = n * fp32 + n * 16 * d;
    CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() ==
          K * inner + epochs * snapshot);
  }
}

TEST_CASE("qsgd and ef-sgd are sgd with their compressor", "[svrg]") {
  auto without_wall = [](const std::string& csv) {
    std::string out;
    for (const auto& r : metrics_rows(csv))
      out += std::to_string(r.iteration) + " " + std::to_string(r.bits_total) + " " +
             std::to_string(r.train_loss) + "\n";
    return out;
  };
  const json base = {{"collective", "allgather"}, {"step_size", 0.1}, {"batch_size", 10}};
  json qsgd = base, sgd_qsgd = base, ef = base, sgd_ef = base;
  qsgd["kind"] = "qsgd";
  sgd_qsgd["kind"] = "sgd";
  sgd_qsgd["compressor"] = {{"kind", "qsgd"}};
  ef["kind"] = "ef-sgd";
  sgd_ef["kind"] = "sgd";
  sgd_ef["compressor"] = {{"kind", "sign"}, {"error_feedback", true}};
  auto csv = [](const json& a) {
    return dlsim::test::run_scenario(dlsim::test::svrg_regression(a, 40)).metrics_csv;
  };
  CHECK(without_wall(csv(qsgd)) == without_wall(csv(sgd_qsgd)));
  CHECK(without_wall(csv(ef)) == without_wall(csv(sgd_ef)));
  CHECK(without_wall(csv(ef)) != without_wall(csv(qsgd)));

  json wrong = qsgd;
  wrong["compressor"] = {{"kind", "lpc"}};
  CHECK(error_path(dlsim::test::svrg_regression(wrong, 10)) == "algorithm.compressor.kind");
  json no_feedback = ef;
  no_feedback["compressor"] = {{"error_feedback", false}};
  CHECK(error_path(dlsim::test::svrg_regression(no_feedback, 10)) ==
        "algorithm.compressor.error_feedback");
}

TEST_CASE("svrg refuses what cannot work", "[svrg]") {
  CHECK(error_path(dlsim::test::svrg_regression(
            svrg("ring-allreduce", {{"compressor", {{"kind", "lpc"}}}}), 10)) ==
        "algorithm.collective");
  CHECK(error_path(dlsim::test::svrg_regression(
            svrg("allgather", {{"downlink_compressor", {{"kind", "fp16"}}}}), 10)) ==
        "algorithm.downlink_compressor");
  json profile = {{"model", {{"kind", "profile"}, {"parameters", 1000}}},
                  {"algorithm", {{"kind", "svrg"}}}};
  CHECK(error_path(profile) == "algorithm.epoch_length");
}
