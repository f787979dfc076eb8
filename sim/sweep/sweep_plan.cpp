#include "sim/sweep/sweep_plan.hpp"

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <sstream>

#include "sim/scenario/load.hpp"
#include "sim/sweep/run_id.hpp"

namespace dlsim::sim {

namespace {

// "sweep point 3 of 8: workers=0, network.bandwidth="1Gbps", repeat 1"
std::string describe(const SweepPlan& plan, const SweepPoint& p, std::size_t index,
                     std::size_t total) {
  std::string values;
  for (std::size_t a = 0; a < p.values.size(); ++a)
    values += (values.empty() ? "" : ", ") + plan.axes[a].key + "=" + p.values[a].dump();
  if (plan.repeats > 1)
    values += (values.empty() ? "" : ", ") + ("repeat " + std::to_string(p.repeat));
  std::string text = "sweep point " + std::to_string(index + 1) + " of " + std::to_string(total);
  return values.empty() ? text : text + ": " + values;
}

void set_key(nlohmann::json& doc, const std::string& key, const nlohmann::json& value) {
  apply_override(doc, key + "=" + value.dump());
}

}  // namespace

std::filesystem::path default_sweep_dir(const nlohmann::json& raw) {
  if (raw.is_object() && raw.contains("output") && raw["output"].is_object() &&
      raw["output"].contains("dir") && raw["output"]["dir"].is_string())
    return raw["output"]["dir"].get<std::string>();
  std::string name = "run";
  if (raw.is_object() && raw.contains("name") && raw["name"].is_string())
    name = raw["name"].get<std::string>();
  return std::filesystem::path("results") / (name + "-sweep");
}

SweepPlan plan_sweep(const SweepRequest& request) {
  const nlohmann::json& raw = request.scenario;
  if (!raw.is_object()) throw InputError("scenario", "must be a JSON object");

  // The sweep block's own shape (grid values are lists, repeat >= 1), checked alone
  // so that the base scenario need not be valid before the grid fills it in.
  nlohmann::json block = nlohmann::json::object();
  if (raw.contains("sweep")) {
    block = resolve_scenario(nlohmann::json{{"sweep", raw["sweep"]}})["sweep"];
  }

  SweepPlan plan;
  plan.name =
      raw.contains("name") && raw["name"].is_string() ? raw["name"].get<std::string>() : "run";
  plan.dir = request.out ? *request.out : default_sweep_dir(raw);
  plan.axes = merge_axes(block, request.grid);
  plan.repeats = request.repeats ? *request.repeats : block.value("repeat", 1);
  if (plan.repeats < 1) throw InputError("--repeat", "must be >= 1");
  // Refuse a plan too large to hold before expanding it (a grid of 10^9 points would
  // end in bad_alloc); every factor is checked, so the product cannot overflow.
  std::uint64_t runs = std::uint64_t(plan.repeats);
  for (const SweepAxis& axis : plan.axes) {
    runs *= std::max<std::uint64_t>(axis.values.size(), 1);
    if (runs > kMaxSweepRuns) break;
  }
  if (std::uint64_t(plan.repeats) > kMaxSweepRuns || runs > kMaxSweepRuns)
    throw InputError(request.repeats ? "--repeat" : "sweep",
                     "the sweep would hold more than " + std::to_string(kMaxSweepRuns) +
                         " runs (grid points x repeats); split it into several sweeps");

  nlohmann::json base = raw;
  base.erase("sweep");
  const std::vector<GridPoint> grid = expand_grid(plan.axes, plan.repeats);
  const std::vector<std::string> ids = make_run_ids(plan.axes, grid, plan.repeats);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    SweepPoint p;
    p.run_id = ids[i];
    p.repeat = grid[i].repeat;
    p.scenario = base;
    for (std::size_t a = 0; a < plan.axes.size(); ++a) {
      p.values.push_back(plan.axes[a].values[grid[i].choice[a]]);
      try {
        set_key(p.scenario, plan.axes[a].key, p.values.back());
      } catch (const InputError& e) {
        throw InputError(plan.axes[a].key,
                         e.problem() + " (in " + describe(plan, p, i, grid.size()) + ")");
      }
    }
    try {
      const nlohmann::json resolved = resolve_scenario(p.scenario);
      const std::int64_t seed = resolved["seed"].get<std::int64_t>();
      // Repeats use seed, seed + 1, ...: they must stay seeds (at most 2^63 - 1).
      if (seed > INT64_MAX - p.repeat)
        throw InputError("seed", std::to_string(seed) + " + repeat " + std::to_string(p.repeat) +
                                     " is beyond the largest seed, 2^63 - 1");
      p.seed = seed + p.repeat;
      p.scenario["seed"] = p.seed;
      set_key(p.scenario, "output.dir", plan.run_dir(p).string());
      load_scenario(p.scenario);
    } catch (const InputError& e) {
      throw InputError(e.where(), e.problem() + " (in " + describe(plan, p, i, grid.size()) + ")");
    }
    plan.points.push_back(std::move(p));
  }
  return plan;
}

nlohmann::json plan_to_json(const SweepPlan& plan) {
  nlohmann::json axes = nlohmann::json::array();
  for (const SweepAxis& a : plan.axes) axes.push_back({{"key", a.key}, {"values", a.values}});
  nlohmann::json points = nlohmann::json::array();
  for (const SweepPoint& p : plan.points)
    points.push_back(
        {{"run_id", p.run_id}, {"values", p.values}, {"repeat", p.repeat}, {"seed", p.seed}});
  return {{"name", plan.name},
          {"axes", axes},
          {"repeat", plan.repeats},
          {"points", points},
          {"version", DLSIM_VERSION}};
}

SweepPlan read_plan(const std::filesystem::path& dir) {
  const std::filesystem::path file = dir / "sweep.json";
  if (!std::filesystem::exists(file))
    throw InputError(dir.string(), "not a sweep folder (no sweep.json)");
  const nlohmann::json doc = read_scenario_file(file.string());
  SweepPlan plan;
  try {
    plan.name = doc.at("name").get<std::string>();
    plan.dir = dir;
    plan.repeats = doc.at("repeat").get<int>();
    for (const auto& a : doc.at("axes"))
      plan.axes.push_back(
          {a.at("key").get<std::string>(), a.at("values").get<std::vector<nlohmann::json>>()});
    for (const auto& p : doc.at("points")) {
      SweepPoint point;
      point.run_id = p.at("run_id").get<std::string>();
      point.values = p.at("values").get<std::vector<nlohmann::json>>();
      point.repeat = p.at("repeat").get<int>();
      point.seed = p.at("seed").get<std::int64_t>();
      if (point.values.size() != plan.axes.size()) throw std::runtime_error("axis count");
      plan.points.push_back(std::move(point));
    }
  } catch (const std::exception& e) {
    throw InputError(file.string(), std::string("not a sweep.json written by dlsim: ") + e.what());
  }
  return plan;
}

}  // namespace dlsim::sim
