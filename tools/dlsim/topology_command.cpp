// `dlsim topology`: the facts of a communication graph without running anything.
// The arguments become the scenario {"seed": S, "workers": N, "topology": {"kind":
// KIND, KEY: VALUE...}} and go through the same loader as scenario files, so the
// keys, defaults and error messages are those of the `topology` section
// (docs/scenario-reference.md). --seed picks the random graph a run with that
// scenario seed would use.
#include "tools/dlsim/topology_command.hpp"

#include <cstdio>
#include <iostream>

#include <fmt/format.h>

#include "sim/scenario/load.hpp"
#include "sim/scenario/topology_build.hpp"
#include "topologies/facts.hpp"

namespace dlsim::tool {

namespace {

std::string yes_no(bool b) {
  return b ? "yes" : "no";
}

std::string number_or_dash(const nlohmann::json& v) {
  if (v.is_null()) return "-";
  if (v.is_number_integer()) return std::to_string(v.get<std::int64_t>());
  return fmt::format("{:.6g}", v.get<double>());
}

void print_table(const topo::TopologyFacts& f, const nlohmann::json& j) {
  const auto row = [](const std::string& label, const std::string& value) {
    std::printf("%-14s %s\n", label.c_str(), value.c_str());
  };
  row("kind", f.kind);
  row("nodes", std::to_string(f.nodes));
  row("edges", std::to_string(f.edges) + (f.time_varying ? " (per round)" : ""));
  row("directed", yes_no(f.directed));
  row("time_varying", yes_no(f.time_varying));
  row("degree_min", std::to_string(f.degree_min) + (f.directed ? " (out-degree)" : ""));
  row("degree_max", std::to_string(f.degree_max) + (f.directed ? " (out-degree)" : ""));
  std::string diameter = number_or_dash(j["diameter"]);
  if (!f.diameter_note.empty()) {
    diameter += " (" + f.diameter_note + ")";
  } else if (!f.diameter) {
    diameter += " (exact computation too costly at this size)";
  } else if (f.time_varying) {
    diameter += " (union of a period)";
  }
  row("diameter", diameter);
  row("connected", yes_no(f.connected) + (f.directed ? " (strongly)" : ""));
  const std::string stochastic = f.stochasticity.doubly() ? "doubly stochastic"
                                 : f.stochasticity.row    ? "row-stochastic"
                                 : f.stochasticity.column ? "column-stochastic"
                                                          : "not stochastic";
  row("weights", f.weights + " (" + stochastic + ")");
  const bool slem = f.directed || f.time_varying;
  row("spectral_gap", number_or_dash(j["spectral_gap"]));
  row("lambda2", number_or_dash(j["lambda2"]) + (slem ? " (second-largest modulus)" : ""));
  row("lambda_min", number_or_dash(j["lambda_min"]));
  row("spectrum", f.spectrum.method);
}

}  // namespace

TopologyCommand::TopologyCommand(CLI::App& app) {
  command_ = app.add_subcommand(
      "topology", "Print the facts of a communication graph: degrees, diameter, spectral gap");
  command_->add_option("kind", kind_, "Topology kind (ring, torus, random-regular, ...)")
      ->required();
  command_->add_option("--workers", workers_, "Number of nodes")->required();
  command_->add_option("--set", sets_,
                       "A key of the scenario's topology object: KEY=VALUE "
                       "(--set dims=[4,4] --set weights=uniform)");
  command_->add_option("--seed", seed_, "Scenario seed for the random kinds (default 1)");
  command_->add_flag("--json", json_, "Print the facts as one JSON object");
}

int TopologyCommand::run() {
  nlohmann::json doc = {{"seed", seed_}, {"workers", workers_}, {"topology", {{"kind", kind_}}}};
  for (const std::string& set : sets_) {
    if (set.find('=') == std::string::npos) {
      throw sim::InputError("--set", "expected KEY=VALUE, got \"" + set + "\"");
    }
    sim::apply_override(doc, "topology." + set);
  }
  const sim::Scenario scenario = sim::load_scenario(doc);
  const topo::TopologyFacts facts = topo::describe(sim::build_topology(scenario));
  const nlohmann::json j = sim::topology_facts_json(facts);
  if (json_) {
    std::cout << j.dump(2) << "\n";
  } else {
    print_table(facts, j);
  }
  return 0;
}

}  // namespace dlsim::tool
