// metrics.csv (docs/design.md §5): a header, then one row per metrics point, written as
// the run goes to `metrics.csv.partial` (flushed per row) and renamed to
// `metrics.csv` when the run ends (partial_csv_file.hpp). A run stopped by
// SIGINT/SIGTERM also ends (summary.json "complete": false), so its rows so far are
// renamed too; after SIGKILL the flushed .partial rows remain.
#pragma once

#include <filesystem>
#include <string>

#include "sim/metrics/observer.hpp"
#include "sim/metrics/partial_csv_file.hpp"

namespace dlsim::sim {

class CsvWriter final : public MetricsObserver {
 public:
  static constexpr const char* kHeader =
      "time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,test_loss,"
      "test_accuracy,consensus_distance,wall_s";

  explicit CsvWriter(const std::filesystem::path& dir);

  void on_row(const MetricsRow& row) override;
  /// Closes the file and gives it its final name.
  void on_finish(const nlohmann::json& summary) override;

  /// One CSV line (no newline) for `row`.
  static std::string format(const MetricsRow& row);

 private:
  PartialCsvFile file_;
};

}  // namespace dlsim::sim
