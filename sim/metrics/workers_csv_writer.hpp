// workers.csv (metrics.per_worker): a header, then per metrics point one row per worker,
// in worker order, with that worker's own model evaluated (WorkerMetrics):
//   time_s,iteration,epoch,worker,train_loss,test_loss,test_accuracy,consensus_distance
// time_s, iteration and epoch are the metrics.csv row's; train_loss is the full objective
// of x_i on the loss set (consensus models: ||x_i − x̄⁰||²), test_loss / test_accuracy of
// x_i on the test set (empty without one), consensus_distance = ||x_i − x̄||² (its mean
// over workers is metrics.csv's consensus_distance). No wall-clock column, so the file is
// byte-identical across runs with the same seed. Same crash rules as metrics.csv
// (csv_writer.hpp): written to workers.csv.partial, flushed per point, renamed when the
// run ends.
#pragma once

#include <filesystem>
#include <string>

#include "sim/metrics/observer.hpp"
#include "sim/metrics/partial_csv_file.hpp"

namespace dlsim::sim {

class WorkersCsvWriter final : public MetricsObserver {
 public:
  static constexpr const char* kHeader =
      "time_s,iteration,epoch,worker,train_loss,test_loss,test_accuracy,consensus_distance";

  explicit WorkersCsvWriter(const std::filesystem::path& dir);

  void on_row(const MetricsRow&) override {}
  void on_workers(const MetricsRow& row, std::span<const WorkerMetrics> workers) override;
  /// Closes the file and gives it its final name.
  void on_finish(const nlohmann::json& summary) override;

  /// One CSV line (no newline) for worker `w` at `row`.
  static std::string format(const MetricsRow& row, const WorkerMetrics& w);

 private:
  PartialCsvFile file_;
};

}  // namespace dlsim::sim
