// ALPC-SVRG through the runner (sim/algorithms/alpc_svrg.cpp): with uncompressed
// messages it is Katyusha (Allen-Zhu 2017), checked against a direct implementation of
// the recursion written here; with 4-bit lpc messages it still converges linearly; the
// smoothness estimate matches the closed forms; bits and refusals.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "sim/algorithms/smoothness.hpp"
#include "sim/scenario/input_error.hpp"
#include "svrg_helpers.hpp"

using dlsim::test::metrics_rows;
using Eigen::VectorXd;
using nlohmann::json;

namespace {

json regression(json algorithm, int iterations, double l2) {
  json doc = dlsim::test::svrg_regression(algorithm, iterations, 0.1,
                                          {{"kind", "least-squares"}, {"bias", false}, {"l2", l2}});
  doc["data"]["condition"] = 50;
  return doc;
}

std::string error_path(const json& doc) {
  try {
    dlsim::sim::load_scenario(doc);
  } catch (const dlsim::sim::InputError& e) {
    return e.where();
  }
  return "";
}

VectorXd fp32(const VectorXd& v) {
  return v.cast<float>().cast<double>();
}

}  // namespace

TEST_CASE("ALPC-SVRG without compression is Katyusha, to 1e-10 over 100 steps", "[alpc-svrg]") {
  const double l2 = 0.001;
  const int n = 4, m = 10;
  // shard = 100 rows = the batch: every stochastic gradient is the shard's, so the direct
  // implementation below sees the same gradients (up to summation order)
  json doc = regression({{"kind", "alpc-svrg"},
                         {"collective", "allgather"},
                         {"compressor", {{"kind", "none"}}},
                         {"batch_size", 100},
                         {"epoch_length", m}},
                        100, l2);
  const auto run = dlsim::test::prepared(doc);
  const auto& train = run.data->train;
  const auto& f = *run.objective;
  const double L =
      dlsim::test::solve_normal_equations(train.features.view(), train.labels, l2).lambda_max;
  doc["algorithm"]["L"] = L;

  for (const std::string option : {"I", "II"}) {
    INFO("option " << option);
    doc["algorithm"]["option"] = option;
    const auto rows = metrics_rows(dlsim::test::run_scenario(doc, "katyusha").metrics_csv);
    REQUIRE(rows.size() == 11);

    // Katyusha (Allen-Zhu 2017, Alg. 1 with the gradient of fp32-rounded per-worker messages)
    const double sigma = l2, tau2 = 0.5, tau1 = std::min(std::sqrt(m * sigma / (3 * L)), 0.5);
    const double alpha = 1 / (3 * tau1 * L);
    auto shard_gradient = [&](int i, const VectorXd& w) {
      VectorXd g;
      f.gradient(w, train, run.shards[std::size_t(i)], g);
      return g;
    };
    const VectorXd zero = VectorXd::Zero(f.dimension());
    VectorXd y = zero, z = zero, snapshot = zero, mu, weighted = zero;
    double weight_sum = 0;
    std::vector<double> losses;
    for (int k = 0; k < 100; ++k) {
      if (k % m == 0) {
        if (k > 0) snapshot = weighted / weight_sum;
        weighted.setZero();
        weight_sum = 0;
        mu = zero;
        for (int i = 0; i < n; ++i) mu += fp32(shard_gradient(i, snapshot));
        mu /= n;
      }
      const VectorXd x = tau1 * z + tau2 * snapshot + (1 - tau1 - tau2) * y;
      VectorXd correction = zero;
      for (int i = 0; i < n; ++i)
        correction += fp32(shard_gradient(i, x) - shard_gradient(i, snapshot));
      const VectorXd g = mu + correction / n;
      const VectorXd z_next = z - alpha * g;
      y = option == "I" ? VectorXd(x - g / (3 * L)) : VectorXd(x + tau1 * (z_next - z));
      z = z_next;
      weighted += std::pow(1 + alpha * sigma, k % m) * y;
      weight_sum += std::pow(1 + alpha * sigma, k % m);
      if ((k + 1) % 10 == 0) losses.push_back(f.loss(y, train));
    }
    const double f_star = f.loss(
        dlsim::test::solve_normal_equations(train.features.view(), train.labels, l2).minimizer,
        train);
    CHECK(losses.back() - f_star > 1e-6);  // not converged yet: the losses still tell apart
    for (std::size_t r = 1; r < rows.size(); ++r) {
      INFO("iteration " << rows[r].iteration);
      CHECK(std::abs(rows[r].train_loss - losses[r - 1]) <= 1e-10 * losses[r - 1]);
    }
  }
}

TEST_CASE("ALPC-SVRG with 4-bit lpc converges linearly", "[alpc-svrg]") {
  for (const std::string collective : {"parameter-server", "allgather"}) {
    for (const bool double_sampling : {false, true}) {
      INFO(collective << " double_sampling " << double_sampling);
      json doc = regression({{"kind", "alpc-svrg"},
                             {"collective", collective},
                             {"batch_size", 10},
                             {"double_sampling", double_sampling}},
                            600, 0.05);
      doc["data"]["condition"] = 4;
      const auto run = dlsim::test::prepared(doc);
      const auto& train = run.data->train;
      const double f_star = run.objective->loss(
          dlsim::test::solve_normal_equations(train.features.view(), train.labels, 0.05).minimizer,
          train);
      const auto rows = metrics_rows(dlsim::test::run_scenario(doc, "alpc").metrics_csv);
      const double gap0 = rows.front().train_loss - f_star;
      CHECK(rows.back().train_loss - f_star <= 1e-13 * gap0);
      CHECK(rows[30].train_loss - f_star <= 1e-5 * gap0);  // linear: halfway, halfway there
    }
  }
}

TEST_CASE("the smoothness estimate matches the closed forms", "[alpc-svrg]") {
  SECTION("least squares: lambda_max(A^T A / N) + l2") {
    const auto run = dlsim::test::prepared(regression({{"kind", "alpc-svrg"}}, 10, 0.3));
    const auto& train = run.data->train;
    const double exact =
        dlsim::test::solve_normal_equations(train.features.view(), train.labels, 0.3).lambda_max;
    CHECK(dlsim::sim::estimate_smoothness(*run.objective, train) == Approx(exact).epsilon(1e-8));
  }
  SECTION("logistic: lambda_max(A^T A / N) / 4 + l2") {
    const json doc = {
        {"workers", 2},
        {"data", {{"source", "synthetic-classification"}, {"samples", 300}, {"features", 5}}},
        {"model", {{"kind", "logistic"}, {"bias", false}, {"l2", 0.02}}},
        {"algorithm", {{"kind", "alpc-svrg"}}}};
    const auto run = dlsim::test::prepared(doc);
    const auto& A = run.data->train.features.view();
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(A.transpose() * A / double(A.rows()));
    const double exact = eig.eigenvalues().maxCoeff() / 4 + 0.02;
    CHECK(dlsim::sim::estimate_smoothness(*run.objective, run.data->train) ==
          Approx(exact).epsilon(1e-6));
  }
}

TEST_CASE("ALPC-SVRG's bits with double sampling: two inner messages per step", "[alpc-svrg]") {
  // T = 20 (the default, two passes over a 100-row shard in batches of 10): epochs at k = 0, 20
  const std::uint64_t d = 6, n = 4, K = 35, epochs = 2;
  const auto out = dlsim::test::run_scenario(regression({{"kind", "alpc-svrg"},
                                                         {"collective", "allgather"},
                                                         {"double_sampling", true},
                                                         {"batch_size", 10}},
                                                        int(K), 0.1));
  CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() ==
        n * (n - 1) * (K * 2 * (32 + 4 * d) + epochs * 32 * d));
}

TEST_CASE("alpc-svrg refuses what Katyusha cannot run", "[alpc-svrg]") {
  CHECK(error_path(regression({{"kind", "alpc-svrg"}}, 10, 0.0)) == "algorithm.sigma");
  CHECK(error_path(regression({{"kind", "alpc-svrg"}, {"sigma", 0.1}}, 10, 0.0)).empty());
  CHECK(error_path(regression({{"kind", "alpc-svrg"}, {"option", "II"}, {"double_sampling", true}},
                              10, 0.1)) == "algorithm.double_sampling");
  CHECK(error_path(regression({{"kind", "alpc-svrg"}, {"momentum", 0.9}}, 10, 0.1)) ==
        "algorithm.momentum");
  const json mlp = {
      {"data", {{"source", "synthetic-classification"}, {"samples", 100}, {"features", 4}}},
      {"model", {{"kind", "mlp"}, {"hidden", {8}}, {"l2", 0.01}}},
      {"algorithm", {{"kind", "alpc-svrg"}}}};
  CHECK(error_path(mlp) == "algorithm.L");
}

TEST_CASE("ALPC-SVRG's default epoch is Katyusha's m = 2n: two passes over a shard",
          "[alpc-svrg]") {
  // 400 samples, 4 workers, batch 10: one pass over a shard is 10 steps, so alpc-svrg's
  // default m = floor(2 * 400 / (4 * 10)) = 20 and svrg's stays 10. Equal metrics rows
  // (bits count every snapshot exchange, the loss every step) show the epoch length.
  const auto rows_of = [](json algorithm) {
    algorithm["batch_size"] = 10;
    algorithm["collective"] = "allgather";
    json doc = regression(algorithm, 60, 0.01);
    doc["metrics"]["every"]["iterations"] = 1;
    return metrics_rows(dlsim::test::run_scenario(doc, "epoch-length").metrics_csv);
  };
  const auto same = [](const auto& a, const auto& b) {
    if (a.size() != b.size()) return false;
    for (std::size_t r = 0; r < a.size(); ++r) {
      if (a[r].bits_total != b[r].bits_total || a[r].train_loss != b[r].train_loss) return false;
    }
    return true;
  };
  const json alpc = {{"kind", "alpc-svrg"}, {"compressor", {{"kind", "lpc"}, {"bits", 4}}}};
  json alpc20 = alpc, alpc10 = alpc;
  alpc20["epoch_length"] = 20;
  alpc10["epoch_length"] = 10;
  const auto by_default = rows_of(alpc);
  CHECK(same(by_default, rows_of(alpc20)));
  CHECK_FALSE(same(by_default, rows_of(alpc10)));
  const json svrg = {{"kind", "svrg"}};
  json svrg10 = svrg;
  svrg10["epoch_length"] = 10;
  CHECK(same(rows_of(svrg), rows_of(svrg10)));
}
