// Data source `year-prediction-msd`: the UCI YearPredictionMSD file with its official
// split (models/data/year_prediction_msd.cpp). The synthetic stand-in of the same shape is
// `synthetic-regression` with preset yearpredictionmsd.
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {
namespace year_prediction_msd_source {

using nlohmann::json;
using namespace spec;

constexpr std::int64_t kOfficialTrainRows = 463715;
constexpr std::int64_t kOfficialTestRows = 51630;

struct YearPredictionMsdSource final : DataOptions {
  std::string path;
  std::int64_t train_rows = kOfficialTrainRows;

  DataSplit load(std::mt19937_64& /*rng*/) const override {
    return or_config_error("path", [&] { return load_year_prediction_msd(path, train_rows); });
  }
  DataShape shape() const override {
    DataShape s{.features = 90, .samples = train_rows};
    if (train_rows == kOfficialTrainRows) s.test_samples = kOfficialTestRows;
    return s;
  }
  std::vector<std::pair<std::string, std::string>> paths() const override {
    return {{"path", path}};
  }
  std::optional<std::string> own_test_set() const override {
    return "for year-prediction-msd, whose rows after data.train_rows are the test set";
  }
};

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<YearPredictionMsdSource>();
  o->path = j.at("path").get<std::string>();
  o->train_rows = j.at("train_rows").get<std::int64_t>();
  return o;
}

const DataSourceRegistration registered{{
    .name = "year-prediction-msd",
    .doc = "The UCI YearPredictionMSD file (YearPredictionMSD.txt: no header; per line the "
           "release year, the regression target, then 90 features), split as the UCI page "
           "says: the first 463,715 rows train, the last 51,630 test.",
    .keys = {required("path", string().nonempty(),
                      "Path of YearPredictionMSD.txt (unzipped from the UCI archive)."),
             defaulted("train_rows", integer().ge(1), kOfficialTrainRows,
                       "Rows from the start of the file used for training; the rest are the "
                       "test set (463,715: the official split).")},
    .facts = {.official_test_set = true, .real_targets = true},
    .read = read,
    .order = 5,
}};

}  // namespace year_prediction_msd_source
}  // namespace dlsim::models
