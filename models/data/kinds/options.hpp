// The typed options of the built-in generated data sources, for the tests that read a
// loaded scenario's data options (DataSpec::options_as), and the part every file source
// shares; each source reads and uses its own in models/data/kinds/<source>.cpp.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

/// synthetic-regression: b = A w* + noise (sources.hpp), optionally shaped by a preset.
struct SyntheticRegressionSource final : DataOptions {
  std::string preset = "none";
  SyntheticRegressionOptions options;

  DataSplit load(std::mt19937_64& rng) const override;
  DataShape shape() const override;
};

/// synthetic-classification: Gaussian clusters (sources.hpp).
struct SyntheticClassificationSource final : DataOptions {
  SyntheticClassificationOptions options;
  std::optional<ImageShape> image;  // data.image_shape

  DataSplit load(std::mt19937_64& rng) const override;
  DataShape shape() const override;
};

/// A source read from a training file and an optional separate test file (csv, libsvm).
struct FileSource : DataOptions {
  std::string path;
  std::string test_path;            // empty: none
  std::optional<ImageShape> image;  // data.image_shape

  DataShape shape() const override {
    DataShape s;
    if (image) {
      s.image = image;
      s.image_text = "data.image_shape is " + image->text();
    }
    return s;
  }
  /// The image shape against the loaded files' feature count.
  void check_image(const DataSplit& split) const {
    check_image_features(image, split.train.feature_count(), path);
  }

  std::vector<std::pair<std::string, std::string>> paths() const override {
    std::vector<std::pair<std::string, std::string>> files = {{"path", path}};
    if (!test_path.empty()) files.emplace_back("test_path", test_path);
    return files;
  }
  std::optional<std::string> own_test_set() const override {
    if (test_path.empty()) return std::nullopt;
    return "when data.test_path gives a separate test file";
  }
};

}  // namespace dlsim::models
