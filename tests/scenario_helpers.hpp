// Helpers shared by the scenario tests: catching an InputError, checking a rejection's
// path and message, temporary scenario files.
#pragma once

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "scratch_path.hpp"
#include "sim/scenario/load.hpp"

namespace dlsim::test {

using dlsim::sim::InputError;
using dlsim::sim::load_scenario;
using nlohmann::json;

struct Outcome {
  bool thrown = false;
  std::string where;
  std::string problem;
};

template <typename F>
Outcome outcome_of(F&& f) {
  try {
    f();
  } catch (const InputError& e) {
    return {true, e.where(), e.problem()};
  }
  return {};
}

// Loads (resolve + to_scenario) `text` and checks the error's path and message.
inline void check_rejected(const std::string& text, const std::string& where,
                           const std::string& fragment) {
  INFO("scenario: " << text);
  const Outcome o = outcome_of([&] { load_scenario(json::parse(text)); });
  REQUIRE(o.thrown);
  CHECK(o.where == where);
  CHECK_THAT(o.problem, Catch::Contains(fragment));
}

// A fresh file under the temp directory holding `text`; removed at scope end.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& text) {
    path = scratch_path("scenario");
    path += ".json";
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
};

inline std::vector<std::string> keys_of(const json& object) {
  std::vector<std::string> keys;
  for (const auto& [k, v] : object.items()) keys.push_back(k);
  return keys;
}

}  // namespace dlsim::test
