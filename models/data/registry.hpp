// The data source registry (spec/registry.hpp): every data source declares, from its own
// .cpp in models/data/kinds/, its name, its doc, the keys of its own options (types,
// ranges, defaults: the only place they are written), its facts, and `read`, which turns
// the `data` object into typed options once, when the scenario is loaded. The options
// then load (or generate) the data at run start. The keys every source with data shares
// (test_fraction, train_samples, normalize, partition) are declared once here
// (data_common_keys); the scenario's `data` object (sim/scenario/spec_data.cpp) is built
// from both. No other file lists data sources (docs/extending.md: adding a data source).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/data/dataset.hpp"
#include "spec/key_error.hpp"
#include "spec/key_table.hpp"
#include "spec/registry.hpp"

namespace dlsim::models {

/// A bad data option; `key` is relative to the `data` object ("path", "test_path"), the
/// simulator prefixes "data.".
class DataConfigError : public spec::KeyError {
 public:
  using KeyError::KeyError;
};

/// The shape of one sample when samples are images: channels × height × width, the
/// features of a row stored channel-major, (c, y, x) with x fastest (Fashion-MNIST
/// 1×28×28, CIFAR-10 3×32×32). The convolutional networks read it.
struct ImageShape {
  std::int64_t channels = 1, height = 1, width = 1;
  std::int64_t size() const { return channels * height * width; }
  /// "3x32x32"
  std::string text() const {
    return std::to_string(channels) + "x" + std::to_string(height) + "x" + std::to_string(width);
  }
  bool operator==(const ImageShape&) const = default;
};

/// What the scenario alone says about the data, before any is loaded (load-time checks
/// and the memory estimate, sim/run/memory_estimate.hpp).
struct DataShape {
  std::optional<std::int64_t> features;  // data.features, when the source has that key
  /// The image shape of every sample, when the source states one (fashion-mnist, cifar10,
  /// or data.image_shape), and how it says so ("cifar10 images are 3x32x32").
  std::optional<ImageShape> image;
  std::string image_text;
  std::optional<std::int64_t> classes;  // the class count, when the scenario fixes it
  std::string classes_text;             // how it says so: "data.classes is 5"
  /// The rows the source will store (training, and a separate test set), when known
  /// before loading (generated data: data.samples).
  std::optional<std::int64_t> samples;
  std::int64_t test_samples = 0;
};

/// Called by a source with the shape of the dense data it is about to store, once the
/// shape is known and before the storage is allocated; throws to refuse the data (the
/// memory guard, sim/run/memory_guard.hpp: a tiny libsvm file may name feature 2^31).
using DenseCheck = std::function<void(const DataShape& shape)>;

/// One source's typed options, read once from the scenario.
class DataOptions {
 public:
  virtual ~DataOptions() = default;
  /// Loads or generates the data; `rng` is the scenario's "data" stream. A bad file
  /// throws DataConfigError at the key of its path.
  virtual DataSplit load(std::mt19937_64& rng) const = 0;
  /// load(), telling `check` the dense shape before storing it. Sources whose stored
  /// size can be far larger than their files (libsvm: absent features are stored as
  /// zeros) override it; the others store what they read and never call `check`.
  virtual DataSplit load(std::mt19937_64& rng, const DenseCheck& /*check*/) const {
    return load(rng);
  }
  /// load(rng, check), asked for features stored as `storage`, which no step edits
  /// before they are stored (row selections copy rows as stored). A source that can write them so
  /// directly does, with the values FeatureMatrix::to_float32() would give, and never holds a
  /// float64 copy; for float64 it may keep byte codes (FeatureMatrix::of_codes, the same values)
  /// (fashion-mnist, cifar10: pixel bytes). The others return float64 storage and leave the
  /// narrowing to the caller.
  virtual DataSplit load(std::mt19937_64& rng, const DenseCheck& check, Storage /*storage*/) const {
    return load(rng, check);
  }
  virtual DataShape shape() const { return {}; }
  /// The files it reads, each with its key ("path", "test_path"), given ones only; the
  /// first is blamed for labels the model cannot use. Empty for generated data.
  virtual std::vector<std::pair<std::string, std::string>> paths() const { return {}; }
  /// When the data comes with its own test set, why data.test_fraction must be 0, as it
  /// completes "must be 0 ...": "when data.test_path gives a separate test file".
  virtual std::optional<std::string> own_test_set() const { return std::nullopt; }
};

/// What the rest of dlsim may assume about every data set of a source.
struct DataSourceFacts {
  bool has_data = true;            // false: the source of models without data
  bool official_test_set = false;  // ships its own test set (test_fraction must be 0)
  /// DataOptions::load(rng, check, storage) stores the values as asked (float32 as floats,
  /// float64 as byte codes) with no float64 copy while loading (the memory estimate).
  bool writes_storage = false;
  /// Labels are real-valued targets (regression), not class labels; classifiers are
  /// refused and pointed to `classes_alternative`.
  bool real_targets = false;
  std::string classes_alternative;
};

struct DataSourceInfo {
  std::string name;
  std::string doc;  // one sentence for the scenario reference
  /// The keys this source accepts besides data_common_keys() (which every source with
  /// data accepts after its own).
  std::vector<spec::Key> keys;
  DataSourceFacts facts;
  /// The resolved `data` object (quantities in SI base units) -> typed options; null for
  /// a source without data. Throws DataConfigError naming the key.
  std::function<std::shared_ptr<const DataOptions>(const nlohmann::json& data)> read;
  /// Place in the key table and the reference (then name order): the built-in sources
  /// keep the reference's order, new ones come after them.
  int order = 1000;
};

using DataSourceRegistry = spec::Registry<DataSourceInfo>;
using DataSourceRegistration = spec::Registration<DataSourceInfo>;

/// The registered source `name` (a programming error when unknown).
inline const DataSourceInfo& data_source_info(const std::string& name) {
  return DataSourceRegistry::instance().at(name);
}

/// Every source, in listing order (`order`, then name).
std::vector<const DataSourceInfo*> listed_data_sources();

/// The source of models without data (the registered one with has_data false).
std::string no_data_source();

/// test_fraction, train_samples, normalize and partition: every source with data.
std::vector<spec::Key> data_common_keys();

/// `image_shape` [C, H, W]: the optional key of the sources whose features may be images
/// (synthetic-classification, csv, libsvm), for the convolutional networks.
spec::Key image_shape_key();
/// data.image_shape when given; throws DataConfigError("image_shape") unless it is three
/// positive integers.
std::optional<ImageShape> read_image_shape(const nlohmann::json& data);
/// Throws DataConfigError("image_shape") when `image` is given and `features` (of the
/// data in `where`, e.g. a file's path) is not C·H·W.
void check_image_features(const std::optional<ImageShape>& image, std::int64_t features,
                          const std::string& where);

/// Runs `load`, turning a DataError into a DataConfigError at `key`.
template <class Load>
auto or_config_error(const std::string& key, Load&& load) {
  try {
    return load();
  } catch (const DataError& e) {
    throw DataConfigError(key, e.what());
  }
}

}  // namespace dlsim::models
