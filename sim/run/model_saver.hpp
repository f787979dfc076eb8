// output.save_model: keeps the models of the latest metrics row and, when the run ends,
// writes their average x̄ (the model metrics.csv evaluates) as model.npy and, with
// metrics.per_worker, every worker's own x_i as workers/model_<i>.npy (npy_file.hpp).
#pragma once

#include <filesystem>
#include <vector>

#include "sim/metrics/observer.hpp"

namespace dlsim::sim {

class ModelSaver final : public MetricsObserver {
 public:
  ModelSaver(std::filesystem::path out_dir, bool per_worker)
      : out_dir_(std::move(out_dir)), per_worker_(per_worker) {}

  void on_row(const MetricsRow&) override {}
  void on_models(const MetricsRow& row, std::span<const models::Vector> models,
                 std::span<const int> holders) override;
  /// Writes the files (nothing before the first row); throws std::runtime_error when a
  /// file cannot be written.
  void write() const;

 private:
  std::filesystem::path out_dir_;
  bool per_worker_;
  std::vector<models::Vector> latest_;
  std::vector<int> holders_;  // the worker of each model in latest_
};

}  // namespace dlsim::sim
