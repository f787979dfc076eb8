#include "sim/metrics/partial_csv_file.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace dlsim::sim {

PartialCsvFile::PartialCsvFile(const std::filesystem::path& dir, std::string_view name,
                               std::string_view header)
    : partial_(dir / (std::string(name) + ".partial")), final_(dir / std::string(name)) {
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", partial_.string(), std::strerror(errno)));
  write_line(header);
}

PartialCsvFile::~PartialCsvFile() {
  if (file_) std::fclose(file_);
}

void PartialCsvFile::write_line(std::string_view line) {
  std::fwrite(line.data(), 1, line.size(), file_);
  std::fputc('\n', file_);
}

void PartialCsvFile::flush() {
  std::fflush(file_);
}

void PartialCsvFile::finish() {
  if (std::fclose(std::exchange(file_, nullptr)) != 0)
    throw std::runtime_error("cannot write " + partial_.string());
  std::filesystem::rename(partial_, final_);
}

void append_cell(std::string& line, const std::optional<double>& value) {
  line += ',';
  if (value) line += fmt::format("{}", *value);
}

}  // namespace dlsim::sim
