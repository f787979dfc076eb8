// metrics.eval_samples end to end: train_loss is measured on a fixed subsample of the
// training set (rows of the training set, the same at every metrics point), and a
// subsample at least as large as the training set is the training set itself.
#include <catch2/catch.hpp>

#include <sstream>

#include "run_helpers.hpp"

using dlsim::test::run_scenario;
using nlohmann::json;

namespace {

json scenario(std::optional<int> eval_samples) {
  json doc = {{"name", "eval-samples"},
              {"seed", 5},
              {"workers", 4},
              {"data",
               {{"source", "synthetic-regression"},
                {"samples", 400},
                {"features", 10},
                {"noise", 0.5},
                {"condition", 5}}},
              {"model", {{"kind", "least-squares"}, {"l2", 1e-3}}},
              {"algorithm", {{"kind", "sgd"}, {"step_size", 0.05}, {"batch_size", 8}}},
              {"stop", {{"iterations", 6}}},
              {"metrics", {{"every", {{"iterations", 2}}}}}};
  if (eval_samples) doc["metrics"]["eval_samples"] = *eval_samples;
  return doc;
}

// train_loss column of every row.
std::vector<double> train_losses(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header; train_loss is the 7th column
  std::vector<double> out;
  while (std::getline(in, line)) {
    std::istringstream row(line);
    std::string cell;
    for (int c = 0; c < 7; ++c) std::getline(row, cell, ',');
    out.push_back(std::stod(cell));
  }
  return out;
}

}  // namespace

TEST_CASE("eval_samples measures train_loss on a fixed subsample of the training rows") {
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(scenario(40)));
  REQUIRE(prepared.data->eval.has_value());
  const auto& eval = *prepared.data->eval;
  const auto& train = prepared.data->train;
  REQUIRE(eval.size() == 40);
  // Every subsample row is a training row (features and label), and no row twice.
  std::vector<bool> used(std::size_t(train.size()), false);
  for (dlsim::models::Index r = 0; r < eval.size(); ++r) {
    dlsim::models::Index match = -1;
    for (dlsim::models::Index t = 0; t < train.size() && match < 0; ++t)
      if (!used[std::size_t(t)] && train.features.row(t) == eval.features.row(r) &&
          train.labels(t) == eval.labels(r))
        match = t;
    REQUIRE(match >= 0);
    used[std::size_t(match)] = true;
  }

  // The initial row's train_loss is the objective on the subsample, not on the whole set.
  const auto sub = train_losses(run_scenario(scenario(40), "eval40").metrics_csv);
  const auto full = train_losses(run_scenario(scenario(std::nullopt), "evalall").metrics_csv);
  std::mt19937_64 unused;
  const auto x0 = prepared.objective->initial_point(unused);
  CHECK(sub.front() == Approx(prepared.objective->loss(x0, eval)).epsilon(1e-12));
  CHECK(full.front() == Approx(prepared.objective->loss(x0, train)).epsilon(1e-12));
  CHECK(std::abs(sub.front() - full.front()) > 1e-6);
  // The subsample is the same at every point and in every run with this seed.
  CHECK(train_losses(run_scenario(scenario(40), "eval40b").metrics_csv) == sub);
}

TEST_CASE("eval_samples at least the training-set size is the whole training set") {
  const auto all = train_losses(run_scenario(scenario(400), "eval400").metrics_csv);
  const auto none = train_losses(run_scenario(scenario(std::nullopt), "evalnone").metrics_csv);
  CHECK(all == none);
}
