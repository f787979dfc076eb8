// metrics.per_worker → workers.csv (sim/metrics/workers_csv_writer.hpp): one row per
// worker per metrics point, each worker's own model evaluated.
//  - consensus model: at iteration 0 every worker's train_loss is ||x_i⁰ − x̄⁰||², with the
//    starting vectors redrawn here from the seed's "consensus-starts" stream; later rows,
//    with CHOCO-gossip preserving the average, have train_loss_i = ||x_i − x̄||² =
//    consensus_distance_i worker by worker.
//  - softmax with D-PSGD: identical workers at iteration 0 give metrics.csv's train_loss;
//    after training the mean of the workers' losses exceeds the loss of the mean model
//    (Jensen, strict since the models differ), while the mean of the consensus distances
//    is metrics.csv's consensus_distance.
//  - row count = points × workers, header, byte-identical reruns, no file without the key.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "gossip_helpers.hpp"
#include "rng/distributions.hpp"
#include "run_helpers.hpp"
#include "sim/engine/rng.hpp"
#include "sim/metrics/workers_csv_writer.hpp"

using dlsim::test::metrics_column;
using nlohmann::json;

namespace {

std::string workers_csv(const dlsim::test::RunOutput& out) {
  return dlsim::test::read_text(out.dir / "workers.csv");
}

std::string header_of(const std::string& csv) {
  return csv.substr(0, csv.find('\n'));
}

// Rows of workers.csv as (iteration, worker) → column value.
std::map<std::pair<int, int>, double> by_worker(const std::string& csv, const std::string& name) {
  const auto iteration = metrics_column(csv, "iteration");
  const auto worker = metrics_column(csv, "worker");
  const auto value = metrics_column(csv, name);
  std::map<std::pair<int, int>, double> out;
  for (std::size_t r = 0; r < value.size(); ++r)
    out[{int(iteration[r]), int(worker[r])}] = value[r];
  return out;
}

}  // namespace

TEST_CASE("workers.csv of a consensus run matches the starting vectors and the distances",
          "[per_worker]") {
  const int n = 6, d = 7;
  json doc = dlsim::test::averaging_scenario("choco-gossip", {{"kind", "ring"}}, n, d, 10, 5);
  doc["algorithm"]["consensus_step"] = 0.5;
  doc["metrics"]["per_worker"] = true;
  const auto out = dlsim::test::run_scenario(doc, "per-worker-consensus");
  const std::string csv = workers_csv(out);
  CHECK(header_of(csv) == dlsim::sim::WorkersCsvWriter::kHeader);
  const auto loss = by_worker(csv, "train_loss");
  const auto distance = by_worker(csv, "consensus_distance");
  REQUIRE(loss.size() == 3 * n);  // points 0, 5, 10

  // the starting vectors, drawn as the consensus model does (docs/design.md §4)
  auto rng = dlsim::sim::make_rng(7, "consensus-starts");
  std::vector<Eigen::VectorXd> starts(n, Eigen::VectorXd(d));
  Eigen::VectorXd average = Eigen::VectorXd::Zero(d);
  for (auto& x : starts) {
    dlsim::rng::Normal normal(0.0, 1.0);  // one per vector, as the model does (fill_normal)
    for (int k = 0; k < d; ++k) x[k] = normal(rng);
    average += x / n;
  }
  for (int i = 0; i < n; ++i) {
    INFO("worker " << i);
    CHECK(loss.at({0, i}) == Approx((starts[i] - average).squaredNorm()).epsilon(1e-12));
    CHECK(distance.at({0, i}) == Approx((starts[i] - average).squaredNorm()).epsilon(1e-12));
    for (int k : {5, 10}) {
      CHECK(loss.at({k, i}) == Approx(distance.at({k, i})).epsilon(1e-9));
    }
  }
  // the mean over workers is metrics.csv's train_loss for this model
  const auto mean_loss = metrics_column(out.metrics_csv, "train_loss");
  for (int k : {0, 5, 10}) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += loss.at({k, i});
    CHECK(sum / n == Approx(mean_loss[std::size_t(k / 5)]).epsilon(1e-12));
  }
}

TEST_CASE("workers.csv of a softmax run: losses of the workers, not of the mean", "[per_worker]") {
  const int n = 4;
  json doc = {{"workers", n},
              {"seed", 5},
              {"data",
               {{"source", "synthetic-classification"},
                {"samples", 600},
                {"features", 8},
                {"classes", 3},
                {"test_fraction", 0.25},
                {"partition", {{"kind", "dirichlet"}, {"alpha", 0.1}}}}},
              {"model", {{"kind", "softmax"}}},
              {"algorithm", {{"kind", "dpsgd"}, {"step_size", 0.5}, {"batch_size", 16}}},
              {"topology", {{"kind", "ring"}}},
              {"stop", {{"iterations", 30}}},
              {"metrics", {{"every", {{"iterations", 10}}}, {"per_worker", true}}}};
  const auto out = dlsim::test::run_scenario(doc, "per-worker-softmax");
  const std::string csv = workers_csv(out);
  const auto iterations = metrics_column(csv, "iteration");
  REQUIRE(iterations.size() == 4 * n);  // points 0, 10, 20, 30
  const auto loss = by_worker(csv, "train_loss");
  const auto distance = by_worker(csv, "consensus_distance");
  const auto accuracy = by_worker(csv, "test_accuracy");
  const auto mean_loss = metrics_column(out.metrics_csv, "train_loss");
  const auto mean_distance = metrics_column(out.metrics_csv, "consensus_distance");
  for (int i = 0; i < n; ++i) {
    CHECK(loss.at({0, i}) == mean_loss[0]);  // everyone starts at x0
    CHECK(accuracy.at({30, i}) >= 0.0);
    CHECK(accuracy.at({30, i}) <= 1.0);
  }
  double sum_loss = 0, sum_distance = 0;
  for (int i = 0; i < n; ++i) {
    sum_loss += loss.at({30, i});
    sum_distance += distance.at({30, i});
  }
  CHECK(mean_distance[3] > 1e-6);
  CHECK(sum_distance / n == Approx(mean_distance[3]).epsilon(1e-9));
  CHECK(sum_loss / n > mean_loss[3] + 1e-9);  // convex loss: mean of f(x_i) > f(mean)

  SECTION("byte-identical reruns") {
    const auto again = dlsim::test::run_scenario(doc, "per-worker-softmax-again");
    CHECK(workers_csv(again) == csv);
  }
  SECTION("no key, no file") {
    doc["metrics"].erase("per_worker");
    const auto plain = dlsim::test::run_scenario(doc, "per-worker-absent");
    CHECK_FALSE(std::filesystem::exists(plain.dir / "workers.csv"));
    CHECK_FALSE(std::filesystem::exists(plain.dir / "workers.csv.partial"));
    CHECK(plain.metrics_csv.substr(plain.metrics_csv.find('\n')).size() > 0);
  }
}
