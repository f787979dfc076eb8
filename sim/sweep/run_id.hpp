// Run ids: the folder name of each sweep point, readable from the values it varies,
// e.g. `workers=8_bandwidth=1Gbps_r1`. A part is `<key>=<value>` per axis (the key's
// last dotted component, or the whole key when two axes share it), joined by "_",
// then `r<k>` when the sweep repeats points. Characters outside [A-Za-z0-9._+=-]
// become "-"; ids longer than 100 characters are cut and given a hash suffix; a
// clash gets "~2", "~3", ... in sweep order. Ids depend only on the grid, so they are
// stable across invocations (and adding values to an axis keeps the old ids).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/sweep/grid.hpp"

namespace dlsim::sim {

/// A short readable text for a value: strings as they are, numbers and booleans as
/// JSON, arrays joined by "x" ([4,4] -> 4x4), objects by "-" over their values with
/// "kind" first ({"kind":"top-k","ratio":0.9} -> top-k-0.9).
std::string value_label(const nlohmann::json& value);

/// Replaces every run of characters outside [A-Za-z0-9._+=-] by one "-", never
/// starts with "." or "-", and bounds the length (hash suffix).
std::string sanitize_run_id(std::string_view text);

/// One unique id per point, in the order of `points`.
std::vector<std::string> make_run_ids(const std::vector<SweepAxis>& axes,
                                      const std::vector<GridPoint>& points, int repeats);

}  // namespace dlsim::sim
