// Data source `libsvm`: libsvm/svmlight files (models/data/libsvm.cpp), stored densely;
// optionally with a separate test file.
#include <algorithm>

#include "models/data/kinds/options.hpp"
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {
namespace libsvm_source {

using nlohmann::json;
using namespace spec;

struct LibsvmSource final : FileSource {
  DataSplit load(std::mt19937_64& rng) const override { return load(rng, nullptr); }
  DataSplit load(std::mt19937_64& /*rng*/, const DenseCheck& check) const override {
    const auto train = or_config_error("path", [&] { return parse_libsvm(path); });
    std::optional<LibsvmFile> test;
    if (!test_path.empty())
      test = or_config_error("test_path", [&] { return parse_libsvm(test_path); });
    // Both files share the feature count of the wider one (trailing zero features are
    // simply not written in libsvm files).
    const Index features = std::max(train.max_feature, test ? test->max_feature : 0);
    // Stored densely, one line naming feature 2^31 is 16 GB: ask before allocating.
    if (check)
      check({.features = features,
             .samples = std::int64_t(train.rows.size()),
             .test_samples = test ? std::int64_t(test->rows.size()) : 0});
    DataSplit split;
    split.train = densify(train, features);
    if (test) split.test = densify(*test, features);
    check_image(split);
    return split;
  }
};

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<LibsvmSource>();
  o->path = j.at("path").get<std::string>();
  o->test_path = j.at("test_path").get<std::string>();
  o->image = read_image_shape(j);
  if (o->path.empty()) throw DataConfigError("path", "data.source libsvm needs a path");
  return o;
}

const DataSourceRegistration registered{{
    .name = "libsvm",
    .doc = "libsvm/svmlight lines `label idx:value ...` (1-based indices), stored densely.",
    .keys = {required("path", string().nonempty(), "Path of the training file."),
             defaulted("test_path", string(), "", "Path of a separate test file (empty: none)."),
             image_shape_key()},
    .read = read,
    .order = 3,
}};

}  // namespace libsvm_source
}  // namespace dlsim::models
