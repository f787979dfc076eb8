// The model registry (spec/registry.hpp): every model kind (objective) declares, from its
// own .cpp in models/objectives/kinds/, its name, its doc, the keys of its own options
// (types, ranges, defaults: the only place they are written), its facts, and `read`, which
// turns the `model` object into typed options once, when the scenario is loaded. The
// options then build the objective from the prepared data at run start. The key table
// (sim/scenario/spec_model.cpp), scenario loading, run preparation and the algorithms'
// checks only look kinds up here; no other file lists model kinds (docs/extending.md:
// adding a model).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/data/dataset.hpp"
#include "models/data/registry.hpp"
#include "models/objectives/objective.hpp"
#include "spec/key_error.hpp"
#include "spec/key_table.hpp"
#include "spec/registry.hpp"

namespace dlsim::models {

/// A bad model option; `key` is relative to the `model` object ("depth",
/// "layers[2].kernel"; empty: the object itself), the simulator prefixes "model.".
class ModelConfigError : public spec::KeyError {
 public:
  using KeyError::KeyError;
};

/// What the prepared run gives a kind to build its objective from.
struct ModelContext {
  const DataSplit* data = nullptr;    // the prepared data; null for models without data
  int workers = 1;                    // scenario `workers`
  std::mt19937_64* starts = nullptr;  // the scenario's "consensus-starts" stream
  /// The image shape the data source states (DataShape::image), if any.
  std::optional<ImageShape> image;
};

/// What a model kind needs in memory besides the model-sized vectors the algorithm keeps
/// (the memory estimate, sim/run/memory_estimate.hpp).
struct ModelMemory {
  /// Bytes of scratch one thread keeps once it has run batch gradients and evaluation
  /// blocks (gathered rows, activations, im2col buffers: thread_local in the objectives).
  double thread_bytes = 0;
  /// Doubles every worker holds besides the algorithm's vectors (consensus: its start).
  double worker_values = 0;
  /// Rows of byte-coded features a thread widens to doubles at once, in a scratch of its
  /// own (counted when the data is byte-coded): at most an evaluation block's.
  double coded_rows_widened = 1024;
};

/// One kind's typed options, read once from the scenario.
class ModelOptions {
 public:
  virtual ~ModelOptions() = default;
  /// The objective every worker optimizes. Throws ModelConfigError for what only the
  /// data can show (e.g. the wrong number of features).
  virtual std::unique_ptr<Objective> build(const ModelContext& context) const = 0;
  /// The regularizers (model.l2, model.l1); none by default.
  virtual Regularization regularization() const { return {}; }
  /// Makes the labels what the model needs (facts.labels): ±1, class indices. A problem
  /// the options cause throws ModelConfigError at their key, one of the data's
  /// std::invalid_argument.
  virtual void fit_labels(DataSplit& /*split*/) const {}
  /// Checks against what the scenario says about the data; throws ModelConfigError.
  virtual void check_data(const DataShape& /*data*/) const {}
  /// The parameter count when the scenario alone determines it (for load-time checks).
  virtual std::optional<std::int64_t> parameter_count(const DataShape& /*data*/) const {
    return std::nullopt;
  }
  /// Its memory beyond the algorithm's vectors, for data of this shape (features and
  /// classes known) and batches of `batch` rows; nothing by default.
  virtual ModelMemory memory(const DataShape& /*data*/, std::int64_t /*batch*/) const { return {}; }
};

/// The labels a model needs.
enum class LabelNeeds {
  any,            // real targets are fine (regression)
  binary,         // two classes, ±1 (or binarized by the model's options)
  class_indices,  // 0..C-1
};

/// What the rest of dlsim may assume about a model kind.
struct ModelFacts {
  bool needs_data = true;  // false: data.source must be the source without data
  bool has_values = true;  // false: no parameter values, no math, a timing model only
  bool has_loss = true;    // train_loss means something (stop.target_loss)
  /// Only meaningful when every worker holds its own model, and why.
  bool needs_decentralized = false;
  std::string decentralized_reason;
  LabelNeeds labels = LabelNeeds::any;
  /// The number of input features the model takes, and what they are ("28x28 images").
  std::optional<std::int64_t> input_features;
  std::string input_text;
  /// Takes images of whatever shape the data states (DataShape::image: fashion-mnist,
  /// cifar10, data.image_shape); input_features is then the default for data that states
  /// none.
  bool image_input = false;
  /// sim/algorithms/smoothness.hpp estimates its L (a global bound, or exact).
  bool smoothness_estimable = false;
};

struct ModelInfo {
  std::string name;
  std::string doc;  // one paragraph: the objective
  /// The keys this kind accepts (the `model` object has no common keys besides `kind`).
  std::vector<spec::Key> keys;
  ModelFacts facts;
  /// The resolved `model` object (quantities in SI base units: compute_time in seconds)
  /// -> typed options. Throws ModelConfigError naming the key.
  std::function<std::shared_ptr<const ModelOptions>(const nlohmann::json& model)> read;
  /// Place in the key table and the reference (then name order): the built-in kinds
  /// keep the reference's order, new ones come after them.
  int order = 1000;
};

using ModelRegistry = spec::Registry<ModelInfo>;
using ModelRegistration = spec::Registration<ModelInfo>;

/// The registered kind `kind` (a programming error when unknown).
inline const ModelInfo& model_info(const std::string& kind) {
  return ModelRegistry::instance().at(kind);
}

/// Every kind, in listing order (`order`, then name).
std::vector<const ModelInfo*> listed_models();

/// The names of the kinds whose facts satisfy `pred`, in name order.
std::vector<std::string> model_kinds_where(const std::function<bool(const ModelFacts&)>& pred);

}  // namespace dlsim::models
