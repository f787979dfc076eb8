#include "sim/metrics/csv_writer.hpp"

#include <fmt/format.h>

namespace dlsim::sim {

CsvWriter::CsvWriter(const std::filesystem::path& dir) : file_(dir, "metrics.csv", kHeader) {}

std::string CsvWriter::format(const MetricsRow& r) {
  std::string out = fmt::format("{},{}", r.time_s, r.iteration);
  append_cell(out, r.epoch);
  out += fmt::format(",{},{},{}", r.bits_total, r.bytes_wire, r.messages);
  append_cell(out, r.train_loss);
  append_cell(out, r.test_loss);
  append_cell(out, r.test_accuracy);
  append_cell(out, r.consensus_distance);
  out += fmt::format(",{}", r.wall_s);
  return out;
}

void CsvWriter::on_row(const MetricsRow& row) {
  file_.write_line(format(row));
  file_.flush();
}

void CsvWriter::on_finish(const nlohmann::json&) {
  file_.finish();
}

}  // namespace dlsim::sim
