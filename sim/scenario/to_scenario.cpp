// to_scenario: the typed Scenario from a resolved document, plus the checks that
// involve several keys (docs/design.md §4): torus size, per-worker lists, node and link
// ids, which collectives and compressors go together, data versus model. Each section
// is read and checked in its own file (to_scenario_<section>.cpp); this file fixes the
// order of the checks, which decides the error reported when several apply.
#include <stdexcept>
#include <string>

#include "sim/scenario/failure_check.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim {
namespace {

// `name` becomes the folder results/<name> and the label of sweeps and plots: it must be
// a safe folder name (a NUL would cut the path, a "/" or ".." would write elsewhere).
void check_run_name(const std::string& name) {
  if (name.empty()) throw InputError("name", "must not be empty");
  if (name.size() > 128) throw InputError("name", "longer than 128 bytes");
  for (const char c : name) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      throw InputError("name", "must not contain control characters (NUL, newline, ...)");
    if (c == '/' || c == '\\')
      throw InputError("name",
                       "must not contain a slash or a backslash (it names a folder; "
                       "set output.dir for a path)");
  }
  if (name == "." || name == "..") throw InputError("name", "must not be \".\" or \"..\"");
}

using nlohmann::json;
using namespace scenario_sections;

Scenario read(const json& j) {
  Scenario s;
  s.name = j.at("name").get<std::string>();
  check_run_name(s.name);
  s.description = j.at("description").get<std::string>();
  s.seed = j.at("seed").get<std::uint64_t>();
  s.workers = j.at("workers").get<std::int64_t>();
  read_data(j.at("data"), s.data);
  read_model(j.at("model"), s.model);
  read_algorithm(j.at("algorithm"), s.algorithm);
  read_topology(j.at("topology"), s.topology);
  read_network(j.at("network"), s.network);
  read_compute(j.at("compute"), s.compute);
  read_stop(j.at("stop"), s.stop);
  read_metrics(j.at("metrics"), s.metrics);
  s.output_dir = j.at("output").at("dir").get<std::string>();
  s.save_model = j.at("output").at("save_model").get<bool>();
  return s;
}

}  // namespace

Scenario to_scenario(const json& resolved) {
  Scenario s;
  try {
    s = read(resolved);
  } catch (const json::exception& e) {
    throw InputError("scenario", std::string("not a resolved scenario: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError("scenario", std::string("not a resolved scenario: ") + e.what());
  }
  check_topology_kind(s);
  check_compute(s);
  check_network(s);
  check_algorithm(s);
  check_data(s);
  check_per_worker_metrics(s);
  check_save_model(s);
  check_topology(s);
  check_node_failures(s, resolved);  // failure_check.cpp
  if (s.output_dir.empty()) throw InputError("output.dir", "must not be empty");
  s.resolved = resolved;
  return s;
}

}  // namespace dlsim::sim
