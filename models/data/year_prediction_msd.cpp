// YearPredictionMSD (UCI; Bertin-Mahieux et al., ISMIR 2011) in its distributed layout,
// `YearPredictionMSD.txt`: no header, one song per line, 91 comma-separated numbers: the
// release year, then 90 timbre features (12 averages, 78 covariances). The official split
// is by position (no artist in both parts): the first 463,715 rows train, the last 51,630
// test. The file is read line by line (it is 433 MB); errors name "file:line".
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/data/csv_fields.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

constexpr Index kFeatures = 90;

// "year", "feature 1", ..., "feature 90": the names errors give the columns, made once.
std::vector<std::string> column_names() {
  std::vector<std::string> names = {"year"};
  for (Index c = 1; c <= kFeatures; ++c) names.push_back("feature " + std::to_string(c));
  return names;
}

}  // namespace

DataSplit load_year_prediction_msd(const std::string& path, Index train_rows) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw DataError(path, std::string("cannot read file: ") + std::strerror(EISDIR));
  std::ifstream in(path);
  if (!in) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));

  // One pass over the lines into a row-major buffer (no copy of the text is kept), then
  // into the train and test matrices.
  std::vector<double> values;  // row-major, kFeatures per row
  std::vector<double> years;
  const std::vector<std::string> names = column_names();
  std::size_t line_no = 0;
  std::size_t blank_from = 0;  // first blank line of a trailing run (0: none)
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (trim(line).empty()) {
      if (blank_from == 0) blank_from = line_no;
      continue;
    }
    const std::string where = at_line(path, line_no);
    if (blank_from != 0) throw DataError(at_line(path, blank_from), "blank line");
    const auto fields = split_fields(line);
    if (fields.size() != std::size_t(kFeatures) + 1) {
      throw DataError(where, "expected 91 fields (year, then 90 features), found " +
                                 std::to_string(fields.size()));
    }
    years.push_back(parse_number(fields[0], where, names[0]));
    for (std::size_t c = 1; c < fields.size(); ++c)
      values.push_back(parse_number(fields[c], where, names[c]));
  }
  if (in.bad()) throw DataError(path, std::string("cannot read file: ") + std::strerror(errno));
  const Index rows = Index(years.size());
  if (rows <= train_rows) {
    throw DataError(path, "has " + std::to_string(rows) + " rows; the split keeps the first " +
                              std::to_string(train_rows) +
                              " for training and needs at least one more for the test set "
                              "(the UCI file has 515,345; set data.train_rows for another split)");
  }
  DataSplit split;
  const auto take = [&](Index first, Index count) {
    Dataset d;
    d.features =
        Eigen::Map<const Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
            values.data() + first * kFeatures, count, kFeatures);
    d.labels = Eigen::Map<const Vector>(years.data() + first, count);
    d.classes = 0;
    return d;
  };
  split.train = take(0, train_rows);
  split.test = take(train_rows, rows - train_rows);
  return split;
}

}  // namespace dlsim::models
