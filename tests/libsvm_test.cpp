// libsvm files: parsing, dense storage, and every malformed line refused with file:line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "models/data/sources.hpp"
#include "run_helpers.hpp"

using namespace dlsim::models;

namespace {

std::string write_file(const std::string& name, const std::string& text) {
  const auto path = dlsim::test::fresh_dir("libsvm") / name;
  std::ofstream(path) << text;
  return path.string();
}

// The DataError message of parsing `text`.
std::string error_of(const std::string& text) {
  const std::string path = write_file("bad.svm", text);
  try {
    parse_libsvm(path);
  } catch (const DataError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("libsvm: sparse rows become dense, 1-based indices, comments and blanks skipped") {
  const std::string path = write_file("a.svm",
                                      "+1 1:0.5 3:-2 # a comment\n"
                                      "\n"
                                      "# only a comment\n"
                                      "-1 2:1e-1\n"
                                      "1\t1:1\t4:4   \n");
  const LibsvmFile file = parse_libsvm(path);
  CHECK(file.max_feature == 4);
  const Dataset data = densify(file, 5);
  REQUIRE(data.size() == 3);
  REQUIRE(data.feature_count() == 5);
  Matrix expected(3, 5);
  expected << 0.5, 0, -2, 0, 0,  //
      0, 0.1, 0, 0, 0,           //
      1, 0, 0, 4, 0;
  CHECK(data.features.view() == expected);
  CHECK(data.labels == Vector::Map(std::vector<double>{1, -1, 1}.data(), 3));
  CHECK(data.classes == 0);
}

TEST_CASE("libsvm: malformed lines name the file and line") {
  const auto check = [](const std::string& text, const std::string& line, const std::string& what) {
    const std::string message = error_of(text);
    INFO(message);
    CHECK(message.find("bad.svm:" + line + ": ") != std::string::npos);
    CHECK(message.find(what) != std::string::npos);
  };
  check("1 1:2\nabc 1:2\n", "2", "label \"abc\" is not a number");
  check("1 1:2\n1 0:2\n", "2", "must be >= 1");
  check("1 1:2 x\n", "1", "expected index:value");
  check("1 1:2\n\n1 3:1 2:1\n", "3", "strictly increasing");
  check("1 2:2 2:3\n", "1", "strictly increasing");
  check("1 1:nan\n", "1", "not finite");
  check("1 1:2e\n", "1", "value \"2e\" is not a number");
  check("1 a:2\n", "1", "not an integer");
  check("1 qid:3 1:2\n", "1", "qid");
  check("# nothing\n", "2", "no samples");
}

TEST_CASE("libsvm: a missing file is a DataError naming it") {
  try {
    parse_libsvm("/nonexistent/x.svm");
    FAIL("no error");
  } catch (const DataError& e) {
    CHECK(e.where() == "/nonexistent/x.svm");
  }
}
