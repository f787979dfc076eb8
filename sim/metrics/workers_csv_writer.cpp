#include "sim/metrics/workers_csv_writer.hpp"

#include <fmt/format.h>

namespace dlsim::sim {

WorkersCsvWriter::WorkersCsvWriter(const std::filesystem::path& dir)
    : file_(dir, "workers.csv", kHeader) {}

std::string WorkersCsvWriter::format(const MetricsRow& r, const WorkerMetrics& w) {
  std::string out = fmt::format("{},{}", r.time_s, r.iteration);
  append_cell(out, r.epoch);
  out += fmt::format(",{}", w.worker);
  append_cell(out, w.train_loss);
  append_cell(out, w.test_loss);
  append_cell(out, w.test_accuracy);
  append_cell(out, w.consensus_distance);
  return out;
}

void WorkersCsvWriter::on_workers(const MetricsRow& row, std::span<const WorkerMetrics> workers) {
  for (const WorkerMetrics& w : workers) file_.write_line(format(row, w));
  file_.flush();
}

void WorkersCsvWriter::on_finish(const nlohmann::json&) {
  file_.finish();
}

}  // namespace dlsim::sim
