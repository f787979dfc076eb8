// A sweep, fully decided before anything runs: the output folder, the axes and every
// point with its run id, seed and the exact scenario document that `dlsim run` gets.
// plan_sweep() validates every point (resolve + combination checks), so a bad value
// anywhere in the grid is an InputError before a single file is written.
//
// Output folder: --out, else the scenario's own output.dir when the file sets one,
// else results/<name>-sweep. Each point's scenario is the base scenario (after
// --set) with the sweep block removed, the axis values set, seed = seed + repeat and
// output.dir = DIR/<run id>. sweep.json in DIR records the plan; it marks the folder
// as a sweep and lets `--merge` rebuild the index without the scenario file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/grid.hpp"

namespace dlsim::sim {

/// Most runs one sweep may plan (grid points x repeats); each run is a folder.
inline constexpr std::uint64_t kMaxSweepRuns = 100'000;

struct SweepPoint {
  std::string run_id;
  std::vector<nlohmann::json> values;  // one per axis
  int repeat = 0;
  std::int64_t seed = 0;
  nlohmann::json scenario;  // written to DIR/<run id>/point.json
};

struct SweepPlan {
  std::string name;
  std::filesystem::path dir;
  std::vector<SweepAxis> axes;
  int repeats = 1;
  std::vector<SweepPoint> points;

  std::filesystem::path run_dir(const SweepPoint& p) const { return dir / p.run_id; }
};

struct SweepRequest {
  nlohmann::json scenario;      // the file, --set applied
  std::vector<SweepAxis> grid;  // from --grid, in command-line order
  std::optional<int> repeats;   // --repeat (overrides sweep.repeat)
  std::optional<std::filesystem::path> out;
};

/// Builds and validates the plan; throws InputError (naming the point) for bad input.
SweepPlan plan_sweep(const SweepRequest& request);

/// The folder a sweep of `raw_scenario` writes to without --out.
std::filesystem::path default_sweep_dir(const nlohmann::json& raw_scenario);

/// sweep.json: the plan without the per-point scenarios (they are in point.json).
nlohmann::json plan_to_json(const SweepPlan& plan);
/// Reads DIR/sweep.json back (scenarios left empty); InputError when absent or bad.
SweepPlan read_plan(const std::filesystem::path& dir);

}  // namespace dlsim::sim
