// year-prediction-msd: the UCI file layout (no header; year, then 90 features) on
// generated files, its positional split, malformed files refused with file:line, and a
// least-squares run on it that fits an exact linear rule.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "models/data/sources.hpp"
#include "run_helpers.hpp"

using namespace dlsim::models;

namespace {

// Row r: year 1950 + r, feature c (1-based) = (r + 1) * c / 100, written in varied forms.
std::string generated_rows(int rows) {
  std::ostringstream text;
  text.precision(17);
  for (int r = 0; r < rows; ++r) {
    text << 1950 + r;
    for (int c = 1; c <= 90; ++c) {
      const double v = (r + 1) * c / 100.0;
      if (c == 7)
        text << ", +" << v;  // blanks and a leading '+' are accepted
      else
        text << ',' << (c % 2 ? -v : v);
    }
    text << '\n';
  }
  return text.str();
}

std::string write_file(const std::string& text) {
  const auto path = dlsim::test::fresh_dir("msd") / "YearPredictionMSD.txt";
  std::ofstream(path) << text;
  return path.string();
}

std::string error_of(const std::string& text, Index train_rows = 2) {
  try {
    load_year_prediction_msd(write_file(text), train_rows);
  } catch (const DataError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("year-prediction-msd: the year is the target, 90 features, split by position") {
  const DataSplit split = load_year_prediction_msd(write_file(generated_rows(25) + "\n\n"), 20);
  REQUIRE(split.train.size() == 20);
  REQUIRE(split.test.has_value());
  REQUIRE(split.test->size() == 5);
  CHECK(split.train.feature_count() == 90);
  CHECK(split.train.classes == 0);
  for (int r = 0; r < 25; ++r) {
    const Dataset& d = r < 20 ? split.train : *split.test;
    const Index row = r < 20 ? r : r - 20;
    CHECK(d.labels(row) == 1950 + r);
    for (int c = 1; c <= 90; ++c) {
      const double v = (r + 1) * c / 100.0;
      CHECK(d.features(row, c - 1) == (c != 7 && c % 2 ? -v : v));
    }
  }
}

TEST_CASE("year-prediction-msd: malformed files name the file and line") {
  const auto check = [](const std::string& message, const std::string& where,
                        const std::string& what) {
    INFO(message);
    CHECK(message.find("YearPredictionMSD.txt" + where) != std::string::npos);
    CHECK(message.find(what) != std::string::npos);
  };
  std::string rows = generated_rows(4);
  // Line 3 with one feature too few.
  std::string short_line = rows;
  const auto third = short_line.find('\n', short_line.find('\n') + 1) + 1;
  const auto end_of_third = short_line.find('\n', third);
  const auto last_comma = short_line.rfind(',', end_of_third);
  short_line.erase(last_comma, end_of_third - last_comma);  // drops the last field
  check(error_of(short_line), ":3: ", "expected 91 fields (year, then 90 features), found 90");
  check(error_of("abc" + rows.substr(4)), ":1: ", "column \"year\": \"abc\" is not a number");
  std::string bad_feature = rows;
  bad_feature.replace(bad_feature.find(",-0.01"), 6, ",nan?");
  check(error_of(bad_feature), ":1: ", "column \"feature 1\": \"nan?\" is not a number");
  check(error_of(rows.substr(0, third) + "\n" + rows.substr(third)), ":3: ", "blank line");
  check(error_of(rows, 4), ": ",
        "has 4 rows; the split keeps the first 4 for training and needs at least one more");
  CHECK_THROWS_AS(load_year_prediction_msd(dlsim::test::fresh_dir("msd-dir").string(), 1),
                  DataError);
}

TEST_CASE("year-prediction-msd: least squares fits a linear year rule to its optimum") {
  // year = 2000 + x_1 - 2 x_2 exactly, features from a small fixed table.
  std::ostringstream text;
  for (int r = 0; r < 60; ++r) {
    const double x1 = (r % 7) - 3.0, x2 = (r % 5) - 2.0;
    text << 2000 + x1 - 2 * x2 << ',' << x1 << ',' << x2;
    for (int c = 3; c <= 90; ++c) text << ",0";
    text << '\n';
  }
  const nlohmann::json scenario = {
      {"workers", 2},
      {"data",
       {{"source", "year-prediction-msd"}, {"path", write_file(text.str())}, {"train_rows", 50}}},
      {"model", {{"kind", "least-squares"}, {"l2", 0.0}}},
      {"algorithm", {{"kind", "sgd"}, {"step_size", 0.2}, {"batch_size", 25}}},
      {"stop", {{"epochs", 200}}},
      {"metrics", {{"every", {{"epochs", 200}}}}}};
  const auto out = dlsim::test::run_scenario(scenario, "msd-run");
  const double train_loss = out.summary.at("final").at("train_loss").get<double>();
  const double test_loss = out.summary.at("final").at("test_loss").get<double>();
  INFO(out.metrics_csv);
  CHECK(train_loss < 1e-6);
  CHECK(test_loss < 1e-6);
}
