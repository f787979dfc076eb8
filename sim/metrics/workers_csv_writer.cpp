#include "sim/metrics/workers_csv_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace dlsim::sim {

namespace {
void append(std::string& out, const std::optional<double>& v) {
  out += ',';
  if (v) out += fmt::format("{}", *v);
}
}  // namespace

WorkersCsvWriter::WorkersCsvWriter(const std::filesystem::path& dir)
    : partial_(dir / "workers.csv.partial"), final_(dir / "workers.csv") {
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", partial_.string(), std::strerror(errno)));
  std::fprintf(file_, "%s\n", kHeader);
}

WorkersCsvWriter::~WorkersCsvWriter() {
  if (file_) std::fclose(file_);  // an unfinished run keeps its .partial name
}

std::string WorkersCsvWriter::format(const MetricsRow& r, const WorkerMetrics& w) {
  std::string out = fmt::format("{},{}", r.time_s, r.iteration);
  append(out, r.epoch);
  out += fmt::format(",{}", w.worker);
  append(out, w.train_loss);
  append(out, w.test_loss);
  append(out, w.test_accuracy);
  append(out, w.consensus_distance);
  return out;
}

void WorkersCsvWriter::on_workers(const MetricsRow& row, std::span<const WorkerMetrics> workers) {
  for (const WorkerMetrics& w : workers) std::fprintf(file_, "%s\n", format(row, w).c_str());
  std::fflush(file_);
}

void WorkersCsvWriter::on_finish(const nlohmann::json&) {
  if (std::fclose(std::exchange(file_, nullptr)) != 0)
    throw std::runtime_error("cannot write " + partial_.string());
  std::filesystem::rename(partial_, final_);
}

}  // namespace dlsim::sim
