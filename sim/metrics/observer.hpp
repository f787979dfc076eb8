// Metrics leave the simulation through this interface only (docs/design.md §1): the
// recorder produces rows, and writers (CSV, summary, progress line) observe them.
// Algorithms never format output.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include <nlohmann/json.hpp>

#include "models/data/dataset.hpp"

namespace dlsim::sim {

/// One metrics point; the columns of metrics.csv in order (docs/design.md §5). Empty
/// optionals are the columns that do not apply.
struct MetricsRow {
  double time_s = 0;
  std::int64_t iteration = 0;
  std::optional<double> epoch;
  std::uint64_t bits_total = 0;
  std::uint64_t bytes_wire = 0;
  std::uint64_t messages = 0;
  std::optional<double> train_loss;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  std::optional<double> consensus_distance;
  double wall_s = 0;
};

/// One worker's own model at a metrics point (metrics.per_worker; workers.csv): the same
/// measures as MetricsRow, of x_i instead of the average x̄, and ||x_i − x̄||².
struct WorkerMetrics {
  int worker = 0;
  std::optional<double> train_loss;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  std::optional<double> consensus_distance;
};

/// Cheap, frequent news for progress displays (after every completed iteration).
struct Progress {
  double time_s = 0;
  std::int64_t iteration = 0;
  std::optional<double> epoch;
  std::uint64_t bits_total = 0;
  double fraction_done = 0;  // in [0,1], the largest over the stop criteria that have a bound
  double wall_s = 0;
};

class MetricsObserver {
 public:
  virtual ~MetricsObserver() = default;
  virtual void on_row(const MetricsRow& row) = 0;
  virtual void on_progress(const Progress&) {}
  /// With metrics.per_worker, after on_row(row): every worker's own metrics at that point.
  virtual void on_workers(const MetricsRow& row, std::span<const WorkerMetrics> workers) {
    (void)row;
    (void)workers;
  }
  /// After on_row(row): the models the row evaluated (one per model holder: the shared
  /// replica of centralized algorithms, every worker's x_i of decentralized ones), for
  /// observers that keep or check the models themselves; `holders[i]` is the holder (the
  /// worker id) of models[i]: after a node failure the failed workers are left out.
  virtual void on_models(const MetricsRow& row, std::span<const models::Vector> models,
                         std::span<const int> holders) {
    (void)row;
    (void)models;
    (void)holders;
  }
  /// The run ended normally; `summary` is the content of summary.json.
  virtual void on_finish(const nlohmann::json& summary) { (void)summary; }
};

}  // namespace dlsim::sim
