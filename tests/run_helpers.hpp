// Test helper: run a scenario given as JSON through the same path as `dlsim run`
// (resolve, prepare, run) into a fresh temporary folder.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scratch_path.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"

namespace dlsim::test {

// A new empty folder under the temp directory, removed when the test process exits.
inline std::filesystem::path fresh_dir(const std::string& stem) {
  auto dir = scratch_path(stem);
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct RunOutput {
  nlohmann::json summary;
  std::string metrics_csv;
  std::filesystem::path dir;
};

// Runs a prepared scenario (which a test may have changed) into a fresh folder.
inline RunOutput run_prepared(sim::PreparedRun& prepared, const std::string& stem = "run") {
  sim::RunOptions options;
  options.out_dir = fresh_dir(stem);
  RunOutput out;
  out.summary = sim::run(prepared, options);
  out.metrics_csv = read_text(options.out_dir / "metrics.csv");
  out.dir = options.out_dir;
  return out;
}

inline RunOutput run_scenario(const nlohmann::json& doc, const std::string& stem = "run") {
  auto prepared = sim::prepare(sim::load_scenario(doc));
  return run_prepared(prepared, stem);
}

}  // namespace dlsim::test
