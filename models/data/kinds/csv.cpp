// Data source `csv`: a CSV file with a header row and a label column (models/data/csv.cpp),
// optionally with a separate test file.
#include "models/data/kinds/options.hpp"
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {
namespace csv_source {

using nlohmann::json;
using namespace spec;

struct CsvSource final : FileSource {
  std::string label_column;

  DataSplit load(std::mt19937_64& /*rng*/) const override {
    DataSplit split;
    split.train = or_config_error("path", [&] { return load_csv(path, label_column); });
    if (!test_path.empty()) {
      split.test = or_config_error("test_path", [&] { return load_csv(test_path, label_column); });
      if (split.test->feature_count() != split.train.feature_count())
        throw DataConfigError("test_path", test_path + " has " +
                                               std::to_string(split.test->feature_count()) +
                                               " features but " + path + " has " +
                                               std::to_string(split.train.feature_count()));
    }
    check_image(split);
    return split;
  }
};

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<CsvSource>();
  o->path = j.at("path").get<std::string>();
  o->test_path = j.at("test_path").get<std::string>();
  o->label_column = j.at("label_column").get<std::string>();
  o->image = read_image_shape(j);
  if (o->path.empty()) throw DataConfigError("path", "data.source csv needs a path");
  return o;
}

const DataSourceRegistration registered{{
    .name = "csv",
    .doc = "A CSV file with a header row; the label column, every other column numeric.",
    .keys = {required("path", string().nonempty(), "Path of the training CSV file."),
             defaulted("test_path", string(), "",
                       "Path of a separate test CSV file (empty: none)."),
             defaulted("label_column", string().nonempty(), "label",
                       "Name of the column that holds the label."),
             image_shape_key()},
    .read = read,
    .order = 2,
}};

}  // namespace csv_source
}  // namespace dlsim::models
