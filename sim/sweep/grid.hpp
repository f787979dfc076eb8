// A sweep's parameter grid (docs/design.md §4 `sweep`): axes, each a dotted scenario key
// with a list of values, from the scenario's "sweep" block and from
// `--grid KEY=V1,V2,...`. The points are the Cartesian product of the axes in axis
// order (the last axis varies fastest, like nested for-loops), each run `repeats`
// times; repeat r of a point uses seed + r (seed = the point's scenario seed).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlsim::sim {

struct SweepAxis {
  std::string key;                     // dotted path, e.g. "network.bandwidth"
  std::vector<nlohmann::json> values;  // any JSON value, whole objects included
};

/// One point of the grid: the index of the chosen value on every axis, and the repeat.
struct GridPoint {
  std::vector<std::size_t> choice;
  int repeat = 0;
};

/// Splits "V1,V2,..." at the commas outside JSON brackets, braces and strings, so
/// `{"kind":"top-k","ratio":0.9},{"kind":"none"}` gives two values.
std::vector<std::string> split_grid_values(std::string_view text);

/// Parses one `--grid KEY=V1,V2,...`; each value is JSON when it parses as JSON, else
/// the text as a string (as for --set). Errors name `--grid`.
SweepAxis parse_grid_option(std::string_view option);

/// The axes of a validated "sweep" block (`{"grid": {KEY: [values]}, "repeat": N}`)
/// followed by the command-line axes; a --grid KEY that the block also has replaces
/// the block's values in place. Keys that cannot be swept (sweep.*, output.dir) and
/// a key given twice on the command line are errors.
std::vector<SweepAxis> merge_axes(const nlohmann::json& sweep_block,
                                  const std::vector<SweepAxis>& command_line);

/// Every point, in sweep order: product of the axes, repeats innermost.
std::vector<GridPoint> expand_grid(const std::vector<SweepAxis>& axes, int repeats);

}  // namespace dlsim::sim
