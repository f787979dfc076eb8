// The scenario side of issue 4: new keys resolve to their documented defaults, and
// prepare() builds the data, labels, partitions, eval subsample and objective they ask
// for; a short softmax run on synthetic clusters learns.
#include <catch2/catch.hpp>

#include <set>

#include "run_helpers.hpp"
#include "sim/scenario/load.hpp"

using dlsim::sim::load_scenario;
using dlsim::sim::prepare;
using dlsim::sim::resolve_scenario;
using nlohmann::json;

TEST_CASE("models scenario: defaults that depend on other keys") {
  const json msd = resolve_scenario(json::parse(R"({"data": {"preset": "yearpredictionmsd"}})"));
  CHECK(msd["data"]["samples"] == 463715);
  CHECK(msd["data"]["features"] == 90);
  const json custom =
      resolve_scenario(json::parse(R"({"data": {"preset": "yearpredictionmsd", "samples": 10}})"));
  CHECK(custom["data"]["samples"] == 10);

  const json relu = resolve_scenario(
      json::parse(R"({"data": {"source": "synthetic-classification"}, "model": {"kind": "mlp"}})"));
  CHECK(relu["model"]["init"]["kind"] == "he");
  CHECK(relu["model"]["hidden"] == json::array({128}));
  const json tanh = resolve_scenario(json::parse(
      R"({"data": {"source": "synthetic-classification"}, "model": {"kind": "mlp", "activation": "tanh"}})"));
  CHECK(tanh["model"]["init"]["kind"] == "xavier");

  const json consensus = resolve_scenario(
      json::parse(R"({"model": {"kind": "consensus"}, "algorithm": {"kind": "dpsgd"}})"));
  CHECK(consensus["data"]["source"] == "none");
  CHECK(consensus["model"]["dimension"] == 10);

  const json fmnist = resolve_scenario(json::parse(R"({"data": {"source": "fashion-mnist"}})"));
  CHECK(fmnist["data"]["path"] == "/usr/share/datasets/fashion-mnist");
}

TEST_CASE("models scenario: prepare builds subsamples, labels, partition and objective") {
  auto p = prepare(load_scenario(json::parse(R"({
    "workers": 5,
    "data": {"source": "synthetic-classification", "samples": 1000, "features": 6,
             "classes": 3, "test_fraction": 0.2, "train_samples": 300,
             "partition": {"kind": "dirichlet", "alpha": 0.3}},
    "model": {"kind": "softmax"},
    "algorithm": {"batch_size": 4},
    "metrics": {"eval_samples": 50},
    "stop": {"iterations": 1}})")));
  REQUIRE(p.data);
  CHECK(p.data->train.size() == 300);
  REQUIRE(p.data->test);
  CHECK(p.data->test->size() == 200);
  CHECK(p.objective->dimension() == (6 + 1) * 3);
  std::size_t covered = 0;
  for (const auto& shard : p.shards) {
    CHECK(!shard.empty());
    covered += shard.size();
  }
  CHECK(covered == 300);
  // The eval subsample: 50 distinct training rows, and train_loss is measured on it.
  REQUIRE(p.data->eval);
  CHECK(&p.data->loss_set() == &*p.data->eval);
  CHECK(p.data->eval->size() == 50);
  std::set<std::vector<double>> train_rows;
  for (dlsim::models::Index i = 0; i < 300; ++i) {
    const auto row = p.data->train.features.row(i);
    train_rows.insert(std::vector<double>(row.begin(), row.end()));
  }
  for (dlsim::models::Index i = 0; i < 50; ++i) {
    const auto row = p.data->eval->features.row(i);
    CHECK(train_rows.count(std::vector<double>(row.begin(), row.end())) == 1);
  }
}

TEST_CASE("models scenario: logistic binarizes multiclass data with positive_classes") {
  auto p = prepare(load_scenario(json::parse(R"({
    "data": {"source": "synthetic-classification", "samples": 400, "classes": 4},
    "model": {"kind": "logistic", "positive_classes": [1, 3]},
    "stop": {"iterations": 1}})")));
  const auto& y = p.data->train.labels.array();
  CHECK(((y == 1.0) || (y == -1.0)).all());
  CHECK((y == 1.0).count() > 120);  // about half of 400
  CHECK((y == 1.0).count() < 280);
}

TEST_CASE("models scenario: sgd learns softmax on separable clusters, deterministically") {
  const json doc = json::parse(R"({
    "workers": 4,
    "data": {"source": "synthetic-classification", "samples": 2000, "features": 10,
             "classes": 4, "separation": 6, "test_fraction": 0.25},
    "model": {"kind": "softmax", "l2": 1e-4},
    "algorithm": {"kind": "sgd", "step_size": 0.2, "batch_size": 16},
    "stop": {"epochs": 3},
    "metrics": {"every": {"epochs": 1}}})");
  const auto a = dlsim::test::run_scenario(doc, "softmax-a");
  const auto b = dlsim::test::run_scenario(doc, "softmax-b");
  const double accuracy = a.summary["final"]["test_accuracy"].get<double>();
  CHECK(accuracy > 0.9);
  CHECK(a.summary["final"]["train_loss"] == b.summary["final"]["train_loss"]);
  CHECK(a.summary["final"]["test_loss"] == b.summary["final"]["test_loss"]);
}
