// libsvm / svmlight data (docs/design.md §4 `data.source: libsvm`): one sample per line,
//   <label> <index>:<value> <index>:<value> ...
// indices 1-based and strictly increasing, absent features 0, an optional `# comment`
// at the end of a line; blank and comment-only lines are skipped. Rows are kept sparse
// while parsing (so the train and test files can agree on the feature count) and then
// stored densely (sources.hpp says why). Errors name "file:line" (1-based).
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

double parse_double(std::string_view text, const std::string& where, const char* what) {
  std::string_view digits = text;
  if (digits.size() > 1 && digits.front() == '+') digits.remove_prefix(1);
  double value = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (text.empty() || error != std::errc() || end != digits.data() + digits.size())
    throw DataError(where, std::string(what) + " \"" + std::string(text) + "\" is not a number");
  if (!std::isfinite(value))
    throw DataError(where, std::string(what) + " \"" + std::string(text) + "\" is not finite");
  return value;
}

Index parse_index(std::string_view text, const std::string& where) {
  long long value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size())
    throw DataError(where, "feature index \"" + std::string(text) + "\" is not an integer");
  if (value < 1)
    throw DataError(where, "feature index " + std::to_string(value) + " must be >= 1 (1-based)");
  return Index(value);
}

}  // namespace

LibsvmFile parse_libsvm(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DataError(path, std::string("cannot read file: ") + std::strerror(EISDIR));
  std::ifstream in(path);
  if (!in) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));

  LibsvmFile file;
  file.path = path;
  std::vector<double> labels;
  std::size_t line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    std::string_view text = line;
    if (const auto hash = text.find('#'); hash != std::string_view::npos)
      text = text.substr(0, hash);
    const std::string where = at_line(path, line_no);
    std::vector<std::pair<Index, double>> row;
    bool has_label = false;
    std::size_t pos = 0;
    while (true) {
      pos = text.find_first_not_of(" \t\r", pos);
      if (pos == std::string_view::npos) break;
      const std::size_t end = std::min(text.find_first_of(" \t\r", pos), text.size());
      const std::string_view token = text.substr(pos, end - pos);
      pos = end;
      if (!has_label) {
        labels.push_back(parse_double(token, where, "label"));
        has_label = true;
        continue;
      }
      const auto colon = token.find(':');
      if (colon == std::string_view::npos)
        throw DataError(where, "expected index:value, got \"" + std::string(token) + "\"");
      if (token.substr(0, colon) == "qid") throw DataError(where, "qid fields are not supported");
      const Index index = parse_index(token.substr(0, colon), where);
      const double value = parse_double(token.substr(colon + 1), where, "value");
      if (!row.empty() && index - 1 <= row.back().first)
        throw DataError(where, "feature indices must be strictly increasing (" +
                                   std::to_string(index) + " after " +
                                   std::to_string(row.back().first + 1) + ")");
      row.emplace_back(index - 1, value);
    }
    if (!has_label) continue;  // blank or comment-only line
    if (!row.empty()) file.max_feature = std::max(file.max_feature, row.back().first + 1);
    file.rows.push_back(std::move(row));
  }
  if (in.bad()) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));
  if (file.rows.empty()) throw DataError(at_line(path, line_no + 1), "no samples in file");
  if (file.max_feature == 0) throw DataError(path, "no sample has any feature");
  file.labels = Eigen::Map<const Vector>(labels.data(), Index(labels.size()));
  return file;
}

Dataset densify(const LibsvmFile& file, Index features) {
  Dataset data;
  data.features = Matrix::Zero(Index(file.rows.size()), features);
  data.labels = file.labels;
  for (std::size_t r = 0; r < file.rows.size(); ++r)
    for (const auto& [index, value] : file.rows[r]) {
      if (index >= features)
        throw DataError(file.path, "feature index " + std::to_string(index + 1) + " exceeds the " +
                                       std::to_string(features) + " features of the training file");
      data.features.owned()(Index(r), index) = value;
    }
  data.classes = 0;
  return data;
}

}  // namespace dlsim::models
