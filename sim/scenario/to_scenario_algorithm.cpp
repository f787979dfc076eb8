// to_scenario, section `algorithm`: the typed AlgorithmSpec, and the checks every kind
// shares (collective and compressor, the facts the kind registered, the schedule); each
// kind's own checks come from its registration (sim/scenario/algorithm_registry.hpp).
#include <algorithm>
#include <cmath>
#include <optional>

#include "models/compress/factory.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using messages::index_path;
using nlohmann::json;

namespace {

// The compressor object, read once into its typed config (models/compress/factory.hpp);
// errors at `path`.<key>.
CompressorSpec read_compressor(const json& j, const std::string& path) {
  try {
    return models::parse_compressor(j);
  } catch (const models::CompressorConfigError& e) {
    throw InputError(path + "." + e.key(), e.what());
  }
}

// k <= d when the scenario alone determines the dimension (ModelOptions::parameter_count:
// profile parameters; least-squares on data of stated features); otherwise k <= d is
// checked at run start (sim/run/prepare.cpp).
void check_compressor(const Scenario& s) {
  try {
    const CompressorSpec& config = s.algorithm.compressor;
    const std::optional<std::int64_t> d = s.model.options->parameter_count(s.data.shape());
    if (d) models::check_dimensions(config, {*d});
  } catch (const models::CompressorConfigError& e) {
    throw InputError("algorithm.compressor." + e.key(), e.what());
  }
}

// Ring all-reduce sums partial vectors hop by hop: only compressors whose sums can be
// carried in the same format (Compressor::all_reducible: elementwise roundings), and no
// error-feedback residual (the chunks vary in length).
void check_ring_allreduce(const Scenario& s) {
  const CompressorSpec& c = s.algorithm.compressor;
  const std::vector<std::string>& reducible = models::all_reducible_kinds();
  if (std::find(reducible.begin(), reducible.end(), c.kind) == reducible.end()) {
    throw InputError("algorithm.collective",
                     "ring-allreduce sums partial vectors hop by hop and needs an "
                     "all-reducible compressor (" +
                         messages::join(reducible, " or ") + "), got \"" + c.kind + "\"");
  }
  if (c.error_feedback) {
    throw InputError("algorithm.compressor.error_feedback",
                     "ring-allreduce sends chunks of varying length and cannot keep an "
                     "error-feedback residual; use allgather or parameter-server");
  }
}

// Learning-rate schedules (sim/algorithms/lr_schedule.hpp).
void check_schedule(const Scenario& s) {
  const AlgorithmSpec::Schedule& schedule = s.algorithm.schedule;
  const std::string path = "algorithm.schedule";
  if (schedule.kind == "step" && schedule.milestones.empty())
    throw InputError(path + ".milestones", "a step schedule needs at least one milestone");
  for (std::size_t i = 1; i < schedule.milestones.size(); ++i) {
    if (!(schedule.milestones[i - 1] < schedule.milestones[i]))
      throw InputError(index_path(path + ".milestones", i), "milestones must increase");
  }
  if (schedule.warmup >= 1 && schedule.warmup != std::floor(schedule.warmup)) {
    throw InputError(path + ".warmup",
                     "below 1 a fraction of the run, from 1 on a whole number of iterations; "
                     "got " +
                         messages::number_text(schedule.warmup));
  }
  const bool fractions =
      !schedule.milestones.empty() || (schedule.warmup > 0 && schedule.warmup < 1);
  if (fractions && !s.stop.iterations && !s.stop.epochs) {
    throw InputError(path,
                     "milestones and fractional warmup are fractions of the run's "
                     "iterations: they need stop.iterations or stop.epochs");
  }
}

}  // namespace

void read_algorithm(const json& j, AlgorithmSpec& a) {
  a.kind = j.at("kind").get<std::string>();
  a.step_size = j.at("step_size").get<double>();
  a.batch_size = j.at("batch_size").get<std::int64_t>();
  a.momentum = j.at("momentum").get<double>();
  a.nesterov = j.at("nesterov").get<bool>();
  a.weight_decay = j.at("weight_decay").get<double>();
  if (j.contains("collective")) a.collective = j.at("collective").get<std::string>();
  a.compressor = read_compressor(j.at("compressor"), "algorithm.compressor");
  // the kind's own keys, read by its registration
  if (const AlgorithmInfo& info = algorithm_info(a.kind); info.read) a.options = info.read(j);
  if (j.contains("schedule")) {  // absent: constant
    const json& schedule = j.at("schedule");
    a.schedule.kind = schedule.at("kind").get<std::string>();
    a.schedule.warmup = schedule.at("warmup").get<double>();
    if (schedule.contains("milestones"))
      a.schedule.milestones = schedule.at("milestones").get<std::vector<double>>();
    if (schedule.contains("factor")) a.schedule.factor = schedule.at("factor").get<double>();
  }
}

void check_algorithm(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  const AlgorithmFacts& facts = a.facts();
  if (a.nesterov && a.momentum == 0.0) {
    throw InputError("algorithm.nesterov", "requires algorithm.momentum > 0, got momentum 0");
  }
  if (!facts.decentralized && a.collective == "ring-allreduce") check_ring_allreduce(s);
  check_compressor(s);
  if (!facts.compressed_messages && a.compressor.kind != models::kUncompressed) {
    throw InputError("algorithm.compressor.kind",
                     a.kind + " sends uncompressed messages; must be \"" + models::kUncompressed +
                         "\", got \"" + a.compressor.kind + "\"");
  }
  if (s.workers < facts.min_workers) {
    throw InputError("workers", a.kind + " needs at least " + std::to_string(facts.min_workers) +
                                    " workers, got " + std::to_string(s.workers));
  }
  check_schedule(s);
  if (const AlgorithmInfo& info = algorithm_info(a.kind); info.check) info.check(s);
}

}  // namespace dlsim::sim::scenario_sections
