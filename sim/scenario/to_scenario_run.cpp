// to_scenario, the sections that say how a run is timed, ended and recorded: the typed
// ComputeSpec, StopSpec and MetricsSpec, per-worker compute factors, and per-worker
// metrics only where every worker holds its own model, saved models only where there
// are values.
#include <cmath>

#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using messages::index_path;
using nlohmann::json;

void read_compute(const json& j, ComputeSpec& c) {
  c.speed = parse_flops(j.at("speed"));
  c.per_worker = j.at("per_worker").get<std::vector<double>>();
  c.jitter = j.at("jitter").get<double>();
}

void check_compute(const Scenario& s) {
  const auto& factors = s.compute.per_worker;
  if (!factors.empty() && std::int64_t(factors.size()) != s.workers) {
    throw InputError("compute.per_worker", "must have one entry per worker (" +
                                               std::to_string(s.workers) + "), got " +
                                               std::to_string(factors.size()));
  }
  for (std::size_t i = 0; i < factors.size(); ++i) {
    if (!(factors[i] > 0) || !std::isfinite(factors[i])) {
      throw InputError(index_path("compute.per_worker", i),
                       "must be > 0, got " + messages::number_text(factors[i]));
    }
  }
}

void read_stop(const json& j, StopSpec& s) {
  if (j.contains("epochs")) s.epochs = j.at("epochs").get<double>();
  if (j.contains("iterations")) s.iterations = j.at("iterations").get<std::int64_t>();
  if (j.contains("sim_time")) s.sim_time = parse_time(j.at("sim_time"));
  if (j.contains("bits")) s.bits = to_bits(j.at("bits"));
  if (j.contains("target_loss")) s.target_loss = j.at("target_loss").get<double>();
}

void read_metrics(const json& j, MetricsSpec& m) {
  const json& every = j.at("every");
  if (every.contains("iterations")) {
    m.every = MetricsSpec::Every::iterations;
    m.every_iterations = every.at("iterations").get<std::int64_t>();
  } else if (every.contains("epochs")) {
    m.every = MetricsSpec::Every::epochs;
    m.every_epochs = every.at("epochs").get<double>();
  } else {
    m.every = MetricsSpec::Every::sim_time;
    m.every_sim_time = parse_time(every.at("sim_time"));
  }
  m.test = j.at("test").get<bool>();
  if (j.contains("eval_samples")) m.eval_samples = j.at("eval_samples").get<std::int64_t>();
  m.per_worker = j.at("per_worker").get<bool>();
}

// metrics.per_worker (workers.csv): one row per worker's own model, so only where every
// worker holds one (decentralized algorithms) and there is math to evaluate.
void check_per_worker_metrics(const Scenario& s) {
  if (!s.metrics.per_worker) return;
  if (!s.decentralized()) {
    throw InputError("metrics.per_worker",
                     s.algorithm.kind +
                         " keeps one model that every worker shares, so per-worker rows would "
                         "repeat metrics.csv; per_worker needs a decentralized algorithm");
  }
  if (!s.model.facts().has_values) {
    throw InputError("metrics.per_worker", "model kind \"" + s.model.kind +
                                               "\" has no parameters to evaluate per worker");
  }
}

// output.save_model writes parameter values, which `profile` models do not have.
void check_save_model(const Scenario& s) {
  if (s.save_model && !s.model.facts().has_values) {
    throw InputError("output.save_model",
                     "model kind \"" + s.model.kind + "\" has no parameter values to save");
  }
}

}  // namespace dlsim::sim::scenario_sections
