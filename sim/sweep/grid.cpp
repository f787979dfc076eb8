#include "sim/sweep/grid.hpp"

#include <algorithm>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/json_limits.hpp"

namespace dlsim::sim {

namespace {

std::string json_quoted(std::string_view text) {
  return nlohmann::json(std::string(text)).dump();
}

void check_sweepable(const std::string& key, const std::string& where) {
  if (key.empty() || key.front() == '.' || key.back() == '.' || key.find("..") != std::string::npos)
    throw InputError(where, "bad key " + json_quoted(key) +
                                " (expected a dotted path such as "
                                "network.bandwidth)");
  if (std::size_t(std::count(key.begin(), key.end(), '.')) >= kMaxJsonDepth)
    throw InputError(where, "key nested deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  if (key == "sweep" || key.rfind("sweep.", 0) == 0)
    throw InputError(where, "cannot sweep over the sweep block itself");
  if (key == "output" || key == "output.dir")
    throw InputError(where, "cannot sweep over " + key + ": every run's folder is DIR/<run id>");
}

}  // namespace

std::vector<std::string> split_grid_values(std::string_view text) {
  std::vector<std::string> values;
  std::string current;
  int depth = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      values.push_back(std::move(current));
      current.clear();
      continue;
    }
    current += c;
  }
  values.push_back(std::move(current));
  return values;
}

SweepAxis parse_grid_option(std::string_view option) {
  const std::size_t eq = option.find('=');
  if (eq == std::string_view::npos)
    throw InputError("--grid", "expected KEY=V1,V2,..., got " + json_quoted(option));
  SweepAxis axis;
  axis.key = std::string(option.substr(0, eq));
  check_sweepable(axis.key, "--grid");
  for (const std::string& text : split_grid_values(option.substr(eq + 1))) {
    if (text.empty())
      throw InputError("--grid", "empty value in " + json_quoted(option) +
                                     " (values are separated by single commas)");
    axis.values.push_back(parse_command_line_value(text, "--grid"));
  }
  return axis;
}

std::vector<SweepAxis> merge_axes(const nlohmann::json& sweep_block,
                                  const std::vector<SweepAxis>& command_line) {
  std::vector<SweepAxis> axes;
  if (sweep_block.is_object() && sweep_block.contains("grid")) {
    for (const auto& [key, values] : sweep_block["grid"].items()) {
      check_sweepable(key, "sweep.grid[" + json_quoted(key) + "]");
      axes.push_back({key, values.get<std::vector<nlohmann::json>>()});
    }
  }
  const std::size_t from_block = axes.size();
  for (const SweepAxis& axis : command_line) {
    bool replaced = false;
    for (std::size_t i = 0; i < axes.size(); ++i) {
      if (axes[i].key != axis.key) continue;
      if (i >= from_block)
        throw InputError("--grid", axis.key + " is given twice; list all its values in one --grid");
      axes[i] = axis;
      replaced = true;
    }
    if (!replaced) axes.push_back(axis);
  }
  return axes;
}

std::vector<GridPoint> expand_grid(const std::vector<SweepAxis>& axes, int repeats) {
  std::vector<GridPoint> points;
  std::vector<std::size_t> choice(axes.size(), 0);
  for (const SweepAxis& axis : axes)
    if (axis.values.empty()) return points;
  while (true) {
    for (int r = 0; r < repeats; ++r) points.push_back({choice, r});
    // Odometer increment: the last axis turns fastest.
    std::size_t a = axes.size();
    while (a > 0) {
      --a;
      if (++choice[a] < axes[a].values.size()) break;
      choice[a] = 0;
      if (a == 0) return points;
    }
    if (axes.empty()) return points;
  }
}

}  // namespace dlsim::sim
