#include "sim/sweep/run_index.hpp"

#include <fstream>

#include "sim/metrics/csv_writer.hpp"

namespace dlsim::sim {

namespace {

const char* const kMetricColumns[] = {
    "time_s",     "iteration", "epoch",         "bits_total",         "bytes_wire", "messages",
    "train_loss", "test_loss", "test_accuracy", "consensus_distance", "wall_s"};

std::string cell(const nlohmann::json& value) {
  if (value.is_null()) return "";
  if (value.is_string()) return csv_field(value.get<std::string>());
  return csv_field(value.dump());
}

}  // namespace

std::string_view status_name(RunStatus status) {
  switch (status) {
    case RunStatus::pending:
      return "pending";
    case RunStatus::running:
      return "running";
    case RunStatus::done:
      return "done";
    case RunStatus::failed:
      return "failed";
  }
  return "pending";
}

bool run_finished(const std::filesystem::path& run_dir) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(run_dir / "summary.json", ec) ||
      !std::filesystem::is_regular_file(run_dir / "metrics.csv", ec))
    return false;
  // A run stopped by SIGINT/SIGTERM has both files but "complete": false: redo it.
  std::ifstream in(run_dir / "summary.json");
  const nlohmann::json summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  return !summary.is_discarded() && summary.is_object() &&
         (!summary.contains("complete") || summary["complete"] == true);
}

RunRecord read_run_record(const std::filesystem::path& run_dir) {
  RunRecord record;
  if (run_finished(run_dir)) {
    std::ifstream in(run_dir / "summary.json");
    const nlohmann::json summary = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
    if (!summary.is_discarded() && summary.is_object() && summary.contains("final")) {
      record.status = RunStatus::done;
      record.final = summary["final"];
      return record;
    }
  }
  std::error_code ec;
  if (std::filesystem::exists(run_dir / "failed.json", ec)) record.status = RunStatus::failed;
  return record;
}

std::string csv_field(std::string_view text) {
  if (text.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(text);
  std::string out = "\"";
  for (char c : text) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string index_csv(const SweepPlan& plan, const std::vector<RunRecord>& records,
                      const std::vector<std::size_t>& rows) {
  std::string out = "run_id,status";
  // Each piece appended on its own (no `"," + temporary`: GCC 12's bogus -Wrestrict,
  // GCC bug 105651).
  for (const SweepAxis& a : plan.axes) {
    out += ',';
    out += csv_field(a.key);
  }
  out += ",repeat,seed,";
  out += CsvWriter::kHeader;
  out += '\n';
  for (std::size_t i : rows) {
    const SweepPoint& p = plan.points[i];
    const RunRecord& r = records[i];
    out += csv_field(p.run_id);
    out += ',';
    out += status_name(r.status);
    for (const nlohmann::json& v : p.values) {
      out += ',';
      out += cell(v);
    }
    out += ',';
    out += std::to_string(p.repeat);
    out += ',';
    out += std::to_string(p.seed);
    for (const char* column : kMetricColumns) {
      out += ',';
      if (r.status == RunStatus::done && r.final.is_object() && r.final.contains(column))
        out += cell(r.final[column]);
    }
    out += '\n';
  }
  return out;
}

}  // namespace dlsim::sim
