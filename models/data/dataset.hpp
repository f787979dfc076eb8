// A labelled data set held densely in memory: one row of `features` per sample.
// Labels are real numbers (regression) or class indices 0..classes-1 stored as
// doubles (classification).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>

#include <Eigen/Dense>

#include "models/data/feature_matrix.hpp"

namespace dlsim::models {

using Vector = Eigen::VectorXd;

struct Dataset {
  FeatureMatrix features;  // samples x features: owned, or shared by the ranks of a machine
  Vector labels;           // samples
  int classes = 0;         // 0: regression targets

  Index size() const { return features.rows(); }
  Index feature_count() const { return features.cols(); }
};

/// The training set every worker draws its shard from, and an optional test set.
/// There is exactly one copy of the training set per run: a worker's shard is a list of
/// row indices into `train` (models/data/partition.hpp), never a copy of its rows, and
/// workers only read it (a batch is gathered into per-thread scratch).
struct DataSplit {
  Dataset train;
  std::optional<Dataset> test;
  /// A fixed seeded subsample of `train` on which train_loss is measured
  /// (`metrics.eval_samples`); absent: the whole training set.
  std::optional<Dataset> eval;

  /// The data set train_loss is measured on.
  const Dataset& loss_set() const { return eval ? *eval : train; }
};

/// "path:line", where a DataError about one line of a data file points.
inline std::string at_line(const std::string& path, std::size_t line) {
  return path + ":" + std::to_string(line);
}

/// Bad data (unreadable file, malformed line). `where` is "file:line" or a key.
class DataError : public std::runtime_error {
 public:
  DataError(std::string where, std::string what)
      : std::runtime_error(where + ": " + what), where_(std::move(where)), what_(std::move(what)) {}
  const std::string& where() const { return where_; }
  const std::string& problem() const { return what_; }

 private:
  std::string where_;
  std::string what_;
};

}  // namespace dlsim::models
