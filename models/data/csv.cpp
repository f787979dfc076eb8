// CSV data (docs/design.md §4 `data.source: csv`): a header row naming the columns, the label in
// the column called `label_column`, every other column a numeric feature. Fields are
// separated by commas and trimmed of blanks; quoted fields are not supported and are
// rejected. Trailing blank lines are ignored. Errors name "file:line" (1-based).
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "models/data/csv_fields.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

void reject_quotes(const std::string& path, std::size_t line_no, std::string_view line) {
  if (line.find('"') != std::string_view::npos) {
    throw DataError(at_line(path, line_no), "quoted fields are not supported");
  }
}

}  // namespace

Dataset load_csv(const std::string& path, const std::string& label_column) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw DataError(path, std::string("cannot read file: ") + std::strerror(EISDIR));
  }
  std::ifstream in(path);
  if (!in) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));

  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(std::move(line));
  if (in.bad()) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));
  while (!lines.empty() && trim(lines.back()).empty()) lines.pop_back();
  if (lines.empty()) throw DataError(at_line(path, 1), "empty file: expected a header row");

  // A UTF-8 byte order mark (spreadsheet exports) is not part of the first column's name.
  if (lines[0].starts_with("\xEF\xBB\xBF")) lines[0].erase(0, 3);
  reject_quotes(path, 1, lines[0]);
  const auto header = split_fields(lines[0]);
  std::size_t label = header.size();
  for (std::size_t c = 0; c < header.size(); ++c) {
    if (header[c].empty()) throw DataError(at_line(path, 1), "empty column name in header");
    if (header[c] != label_column) continue;
    if (label != header.size()) {
      throw DataError(at_line(path, 1), "column \"" + label_column + "\" appears twice");
    }
    label = c;
  }
  if (label == header.size()) {
    throw DataError(path, "no column \"" + label_column + "\" in header");
  }
  if (header.size() < 2)
    throw DataError(at_line(path, 1),
                    "no feature columns: the header names only \"" + label_column + "\"");
  if (lines.size() == 1) throw DataError(at_line(path, 2), "no data rows after the header");

  const Index rows = Index(lines.size() - 1);
  const Index columns = Index(header.size());
  Dataset data;
  data.features.owned().resize(rows, columns - 1);
  data.labels.resize(rows);
  for (Index r = 0; r < rows; ++r) {
    const std::size_t line_no = std::size_t(r) + 2;
    const std::string_view line = lines[std::size_t(r) + 1];
    const std::string where = at_line(path, line_no);
    if (trim(line).empty()) throw DataError(where, "blank line");
    reject_quotes(path, line_no, line);
    const auto fields = split_fields(line);
    if (fields.size() != header.size()) {
      throw DataError(where, "expected " + std::to_string(header.size()) + " fields, found " +
                                 std::to_string(fields.size()));
    }
    Index feature = 0;
    for (std::size_t c = 0; c < fields.size(); ++c) {
      const double value = parse_number(fields[c], where, header[c]);
      if (c == label) {
        data.labels(r) = value;
      } else {
        data.features.owned()(r, feature++) = value;
      }
    }
  }
  data.classes = 0;
  return data;
}

}  // namespace dlsim::models
