// metrics.csv (DESIGN.md §5): a header, then one row per metrics point, written as
// the run goes to `metrics.csv.partial` (flushed per row) and renamed to
// `metrics.csv` when the run ends, so a killed run never leaves a complete-looking
// file. A run stopped by SIGINT/SIGTERM also ends (summary.json "complete": false), so
// its rows so far are renamed too; after SIGKILL the flushed .partial rows remain.
// Numbers use the shortest decimal form that reads back exactly.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>

#include "sim/metrics/observer.hpp"

namespace dlsim::sim {

class CsvWriter final : public MetricsObserver {
 public:
  static constexpr const char* kHeader =
      "time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,test_loss,"
      "test_accuracy,consensus_distance,wall_s";

  explicit CsvWriter(const std::filesystem::path& dir);
  ~CsvWriter() override;
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;

  void on_row(const MetricsRow& row) override;
  /// Closes the file and gives it its final name.
  void on_finish(const nlohmann::json& summary) override;

  /// One CSV line (no newline) for `row`.
  static std::string format(const MetricsRow& row);

 private:
  std::filesystem::path partial_;
  std::filesystem::path final_;
  std::FILE* file_ = nullptr;
};

}  // namespace dlsim::sim
