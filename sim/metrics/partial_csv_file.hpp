// The crash-safe CSV file behind metrics.csv and workers.csv (docs/design.md §5): lines go
// to `<name>.partial`, flushed when asked, and the file takes its final name only in
// finish(). A killed run therefore never leaves a complete-looking file; after SIGKILL
// the flushed lines of the .partial remain. Numbers use the shortest decimal form that
// reads back exactly (fmt's default).
#pragma once

#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace dlsim::sim {

class PartialCsvFile {
 public:
  /// Creates `dir/<name>.partial` and writes `header`; throws if it cannot.
  PartialCsvFile(const std::filesystem::path& dir, std::string_view name, std::string_view header);
  ~PartialCsvFile();  // an unfinished file keeps its .partial name
  PartialCsvFile(const PartialCsvFile&) = delete;
  PartialCsvFile& operator=(const PartialCsvFile&) = delete;

  /// Appends one line (without its newline).
  void write_line(std::string_view line);
  void flush();
  /// Closes the file and renames it to its final name.
  void finish();

 private:
  std::filesystem::path partial_;
  std::filesystem::path final_;
  std::FILE* file_ = nullptr;
};

/// Appends `,value` to a CSV line, or a bare `,` (an empty cell) when there is no value.
void append_cell(std::string& line, const std::optional<double>& value);

}  // namespace dlsim::sim
