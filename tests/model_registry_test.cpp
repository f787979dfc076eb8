// The model and data-source registries (models/objectives/registry.hpp,
// models/data/registry.hpp): a model kind and a data source registered here, in the test
// alone, are in the key table and the schema, have their keys validated like built-in
// ones, report their errors at the scenario key, and run end to end through the normal
// loader: SGD on the quadratic f(w) = (1/2N) sum_i ||w - a_i||^2 with exact (whole-shard)
// gradients contracts w - a_bar by (1 - step) per iteration, so the loss after k
// iterations from w = 0 is f* + (1/2)(1 - step)^(2k) ||a_bar||^2, with
// f* = (1/2N) sum_i ||a_i - a_bar||^2 computed here from the points.
#include <catch2/catch.hpp>

#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "models/data/registry.hpp"
#include "models/objectives/registry.hpp"
#include "run_helpers.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/spec.hpp"

using namespace dlsim::models;
using dlsim::sim::InputError;
using nlohmann::json;

namespace {

// Point i, coordinate k: deterministic, so the optimum is known without the simulator.
double coordinate(Index i, Index k) {
  return double((i * (k + 2) + 3 * k) % 11) / 2.0;
}

// Data source `test-grid`: `points` rows of `dims` coordinates, labels 0.
struct GridSource final : DataOptions {
  Index points = 0, dims = 0;
  DataSplit load(std::mt19937_64& /*rng*/) const override {
    DataSplit split;
    split.train.features.owned().resize(points, dims);
    for (Index i = 0; i < points; ++i)
      for (Index k = 0; k < dims; ++k) split.train.features.owned()(i, k) = coordinate(i, k);
    split.train.labels = Vector::Zero(points);
    return split;
  }
  DataShape shape() const override { return {.features = dims}; }
};

const DataSourceRegistration test_grid{{
    .name = "test-grid",
    .doc = "Test only: points on a deterministic grid.",
    .keys = {dlsim::spec::defaulted("points", dlsim::spec::integer().ge(1), 64, "Rows."),
             dlsim::spec::defaulted("dims", dlsim::spec::integer().ge(1).le(8), 3,
                                    "Coordinates per row.")},
    .read =
        [](const json& j) {
          auto o = std::make_shared<GridSource>();
          o->points = j.at("points").get<Index>();
          o->dims = j.at("dims").get<Index>();
          return std::shared_ptr<const DataOptions>(std::move(o));
        },
}};

// f(w) = (1/2N) sum_i ||w - a_i||^2 over the rows a_i of the data.
class Quadratic final : public Objective {
 public:
  explicit Quadratic(Index d) : d_(d) {}
  Index dimension() const override { return d_; }
  double loss(const Vector& w, const Dataset& data) const override {
    double sum = 0;
    for (Index i = 0; i < data.size(); ++i)
      sum += (w.transpose() - data.features.row(i)).squaredNorm();
    return sum / (2.0 * double(data.size()));
  }
  double data_loss(const Vector& w, const Dataset& data) const override { return loss(w, data); }
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override {
    grad = w;
    for (Index r : rows) grad -= data.features.row(r).transpose() / double(rows.size());
  }
  ComputeCost gradient_cost(Index batch) const override {
    return {.flops = 2.0 * double(batch * d_)};
  }
  void prox(Vector& /*w*/, double /*step*/) const override {}
  std::optional<double> accuracy(const Vector&, const Dataset&) const override {
    return std::nullopt;
  }
  Vector initial_point(std::mt19937_64& /*rng*/) const override { return Vector::Zero(d_); }

 private:
  Index d_;
};

struct QuadraticOptions final : ModelOptions {
  std::unique_ptr<Objective> build(const ModelContext& c) const override {
    return std::make_unique<Quadratic>(c.data->train.feature_count());
  }
  std::optional<std::int64_t> parameter_count(const DataShape& data) const override {
    return data.features;
  }
};

const ModelRegistration test_quadratic{{
    .name = "test-quadratic",
    .doc = "Test only: (1/2N) sum ||w - a_i||^2.",
    .keys = {dlsim::spec::defaulted("center", dlsim::spec::boolean(), true,
                                    "Must be true (to test a read error).")},
    .read =
        [](const json& j) {
          if (!j.at("center").get<bool>()) throw ModelConfigError("center", "must be true");
          return std::shared_ptr<const ModelOptions>(std::make_shared<QuadraticOptions>());
        },
}};

json scenario(const json& model, const json& data) {
  return {{"workers", 4},
          {"data", data},
          {"model", model},
          {"algorithm",
           {{"kind", "sgd"}, {"collective", "allgather"}, {"step_size", 0.5}, {"batch_size", 16}}},
          {"stop", {{"iterations", 12}}},
          {"metrics", {{"every", {{"iterations", 1}}}, {"test", false}}}};
}

// The train_loss column of metrics.csv, one value per row.
std::vector<double> train_losses(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  std::stringstream cols(line);
  for (std::string c; std::getline(cols, c, ',');) header.push_back(c);
  const auto at = std::find(header.begin(), header.end(), "train_loss") - header.begin();
  REQUIRE(at < std::ptrdiff_t(header.size()));
  std::vector<double> losses;
  while (std::getline(in, line)) {
    std::stringstream cells(line);
    std::string cell;
    for (std::ptrdiff_t k = 0; k <= at; ++k) std::getline(cells, cell, ',');
    losses.push_back(std::stod(cell));
  }
  return losses;
}

}  // namespace

TEST_CASE("a model kind and a data source registered in a test are in the key table",
          "[model][registry]") {
  const json schema = dlsim::sim::scenario_schema();
  std::vector<std::string> kinds, sources;
  for (const json& v : schema["properties"]["model"]["oneOf"])
    kinds.push_back(v["properties"]["kind"]["const"]);
  for (const json& v : schema["properties"]["data"]["oneOf"])
    sources.push_back(v["properties"]["source"]["const"]);
  CHECK(std::count(kinds.begin(), kinds.end(), "test-quadratic") == 1);
  CHECK(std::count(sources.begin(), sources.end(), "test-grid") == 1);
  // Listed after the built-in kinds (ModelInfo::order), which keep the reference's order.
  CHECK(kinds.front() == "least-squares");
  CHECK(kinds.back() == "test-quadratic");
  CHECK(sources.back() == "test-grid");
  // The common keys of sources with data come after the source's own.
  const json& grid = schema["properties"]["data"]["oneOf"].back()["properties"];
  CHECK(grid.contains("dims"));
  CHECK(grid.contains("partition"));
  CHECK(grid.contains("test_fraction"));
}

TEST_CASE("a test-registered model and data source are validated at their keys",
          "[model][registry]") {
  const json model = {{"kind", "test-quadratic"}};
  const json data = {{"source", "test-grid"}};
  const auto where = [](const json& doc) {
    try {
      dlsim::sim::load_scenario(doc);
    } catch (const InputError& e) {
      return e.where();
    }
    return std::string("accepted");
  };
  CHECK(where(scenario(model, {{"source", "test-grid"}, {"dims", 9}})) == "data.dims");
  CHECK(where(scenario({{"kind", "test-quadratic"}, {"center", false}}, data)) == "model.center");
  CHECK(where(scenario({{"kind", "test-quadratic"}, {"l2", 1}}, data)) == "model.l2");
  // parameter_count: the compressor's k is checked against d = dims when loading.
  json too_large = scenario(model, data);
  too_large["algorithm"]["compressor"] = {{"kind", "top-k"}, {"k", 4}};
  CHECK(where(too_large) == "algorithm.compressor.k");
  too_large["algorithm"]["compressor"]["k"] = 3;
  CHECK(where(too_large) == "accepted");
  // Default facts: the model needs data, so data.source none is refused.
  CHECK(where(scenario(model, {{"source", "none"}})) == "data.source");
}

TEST_CASE("SGD on a test-registered quadratic reaches its known optimum", "[model][registry]") {
  const Index n = 64, d = 3;
  Vector mean = Vector::Zero(d);
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < d; ++k) mean(k) += coordinate(i, k) / double(n);
  double optimum = 0;  // f* = (1/2N) sum ||a_i - a_bar||^2
  for (Index i = 0; i < n; ++i)
    for (Index k = 0; k < d; ++k) optimum += std::pow(coordinate(i, k) - mean(k), 2) / (2.0 * n);
  REQUIRE(optimum > 0.5);

  const auto out = dlsim::test::run_scenario(
      scenario({{"kind", "test-quadratic"}}, {{"source", "test-grid"}}), "model-registry");
  const std::vector<double> losses = train_losses(out.metrics_csv);
  // Rows at iterations 0, 1, ..., 12: w_k = (1 - 0.5^k) a_bar.
  REQUIRE(losses.size() == 13);
  for (std::size_t k = 0; k < losses.size(); ++k) {
    const double expected = optimum + 0.5 * std::pow(0.25, double(k)) * mean.squaredNorm();
    CHECK(losses[k] == Approx(expected).epsilon(1e-9));
  }
  CHECK(losses.back() == Approx(optimum).epsilon(1e-6));
}
