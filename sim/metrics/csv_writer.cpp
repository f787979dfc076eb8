#include "sim/metrics/csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

namespace dlsim::sim {

namespace {
void append(std::string& out, const std::optional<double>& v) {
  out += ',';
  if (v) out += fmt::format("{}", *v);
}
}  // namespace

CsvWriter::CsvWriter(const std::filesystem::path& dir)
    : partial_(dir / "metrics.csv.partial"), final_(dir / "metrics.csv") {
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", partial_.string(), std::strerror(errno)));
  std::fprintf(file_, "%s\n", kHeader);
}

CsvWriter::~CsvWriter() {
  if (file_) std::fclose(file_);  // an unfinished run keeps its .partial name
}

std::string CsvWriter::format(const MetricsRow& r) {
  std::string out = fmt::format("{},{}", r.time_s, r.iteration);
  append(out, r.epoch);
  out += fmt::format(",{},{},{}", r.bits_total, r.bytes_wire, r.messages);
  append(out, r.train_loss);
  append(out, r.test_loss);
  append(out, r.test_accuracy);
  append(out, r.consensus_distance);
  out += fmt::format(",{}", r.wall_s);
  return out;
}

void CsvWriter::on_row(const MetricsRow& row) {
  std::fprintf(file_, "%s\n", format(row).c_str());
  std::fflush(file_);
}

void CsvWriter::on_finish(const nlohmann::json&) {
  if (std::fclose(std::exchange(file_, nullptr)) != 0)
    throw std::runtime_error("cannot write " + partial_.string());
  std::filesystem::rename(partial_, final_);
}

}  // namespace dlsim::sim
