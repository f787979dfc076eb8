#include "sim/metrics/partial_csv_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

#include <fmt/format.h>

namespace dlsim::sim {

namespace {

[[noreturn]] void fail(const char* what, const std::filesystem::path& file, int error) {
  throw std::runtime_error(fmt::format("cannot {} {}: {}", what, file.string(),
                                       error != 0 ? std::strerror(error) : "write error"));
}

}  // namespace

PartialCsvFile::PartialCsvFile(const std::filesystem::path& dir, std::string_view name,
                               std::string_view header)
    : partial_(dir / (std::string(name) + ".partial")), final_(dir / std::string(name)) {
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_) fail("write", partial_, errno);
  write_line(header);
}

PartialCsvFile::~PartialCsvFile() {
  if (file_) std::fclose(file_);
}

// Every write is checked (a full disk, `ulimit -f`): a failure throws, the run ends with
// exit 1, and the file keeps its .partial name, so no cut-short file looks complete.
void PartialCsvFile::write_line(std::string_view line) {
  errno = 0;
  if (std::fwrite(line.data(), 1, line.size(), file_) != line.size() ||
      std::fputc('\n', file_) == EOF)
    fail("write", partial_, errno);
}

void PartialCsvFile::flush() {
  errno = 0;
  if (std::fflush(file_) != 0 || std::ferror(file_)) fail("write", partial_, errno);
}

void PartialCsvFile::finish() {
  flush();
  // The final name promises a complete file: its bytes are on disk before the rename.
  if (::fsync(::fileno(file_)) != 0 && errno != EINVAL) fail("sync", partial_, errno);
  if (std::fclose(std::exchange(file_, nullptr)) != 0) fail("write", partial_, errno);
  if (::rename(partial_.c_str(), final_.c_str()) != 0) fail("rename", partial_, errno);
}

void append_cell(std::string& line, const std::optional<double>& value) {
  line += ',';
  if (value) line += fmt::format("{}", *value);
}

}  // namespace dlsim::sim
