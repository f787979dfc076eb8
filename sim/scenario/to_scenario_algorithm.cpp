// to_scenario, section `algorithm`: the typed AlgorithmSpec, and the checks of which
// collectives, compressors, SVRG options, gossip kinds and schedules go together.
#include <cmath>
#include <optional>

#include "models/compress/factory.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/to_scenario_sections.hpp"

namespace dlsim::sim::scenario_sections {

using messages::index_path;
using nlohmann::json;

namespace {

// The compressor object's own checks (models/compress/factory.cpp), plus k <= d when the
// scenario states the dimension (profile parameters; least-squares on synthetic data);
// otherwise k <= d is checked when the run builds its compressors.
void check_compressor(const Scenario& s) {
  try {
    const auto config = models::parse_compressor(s.algorithm.compressor.options);
    std::optional<std::int64_t> d;
    if (s.model.kind == "profile") d = s.model.parameters;
    if (s.model.kind == "least-squares" && s.data.source == "synthetic-regression")
      d = s.data.features + (s.model.bias ? 1 : 0);
    if (d) models::check_dimensions(config, {*d});
  } catch (const models::CompressorConfigError& e) {
    throw InputError("algorithm.compressor." + e.key(), e.what());
  }
}

// The sgd aliases and the SVRG family (sim/algorithms/svrg.cpp, alpc_svrg.cpp).
void check_svrg_family(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.kind == "qsgd" && a.compressor.kind != "qsgd") {
    throw InputError("algorithm.compressor.kind",
                     "algorithm qsgd is sgd with the qsgd compressor; must be \"qsgd\" (or "
                     "absent), got \"" +
                         a.compressor.kind + "\"");
  }
  if (a.kind == "ef-sgd" && !a.compressor.error_feedback) {
    throw InputError("algorithm.compressor.error_feedback",
                     "algorithm ef-sgd is sgd with error feedback; must be true (or absent)");
  }
  if (!a.svrg_family()) return;
  if (a.downlink_compressor) {
    if (a.collective != "parameter-server") {
      throw InputError(
          "algorithm.downlink_compressor",
          "only a parameter server sends a downlink; collective is \"" + a.collective + "\"");
    }
    try {
      (void)models::parse_compressor(a.downlink_compressor->options);
    } catch (const models::CompressorConfigError& e) {
      throw InputError("algorithm.downlink_compressor." + e.key(), e.what());
    }
  }
  const bool has_math = s.model.kind != "profile";
  if (!a.epoch_length && s.data.source == "none") {
    throw InputError("algorithm.epoch_length",
                     "required for models without data (model.kind \"" + s.model.kind +
                         "\"): the epoch cannot be one pass over a shard");
  }
  if (a.kind == "alpc-svrg") {
    if (a.momentum != 0.0 || a.weight_decay != 0.0) {
      throw InputError(a.momentum != 0.0 ? "algorithm.momentum" : "algorithm.weight_decay",
                       "alpc-svrg has its own (Katyusha) momentum and uses model.l2 for "
                       "regularization; must be 0");
    }
    if (a.double_sampling && a.option == "II") {
      throw InputError("algorithm.double_sampling",
                       "the second sample feeds the option-I y-step; option II has none");
    }
    if (has_math && !a.sigma && s.model.l2 <= 0.0) {
      throw InputError("algorithm.sigma",
                       "Katyusha needs the strong convexity sigma > 0: give algorithm.sigma "
                       "or model.l2 > 0 (sigma defaults to model.l2, which is 0)");
    }
    const bool estimable =
        s.model.kind == "least-squares" || s.model.kind == "logistic" || s.model.kind == "softmax";
    if (has_math && !a.L && !estimable) {
      throw InputError("algorithm.L", "cannot be estimated for model.kind \"" + s.model.kind +
                                          "\" (least-squares, logistic and softmax only); give it");
    }
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
  const bool constant = schedule.kind == "constant" && schedule.warmup == 0;
  if (s.algorithm.kind == "alpc-svrg" && !constant) {
    throw InputError(path,
                     "alpc-svrg derives its steps from L and sigma (Katyusha); only "
                     "{\"kind\": \"constant\"} without warmup");
  }
}

// The gossip kinds of issue 7 (choco-sgd, adag-sgd, choco-gossip, sgp, choco-sgp,
// adag-sgp); the graph they need (symmetric for the CHOCO family) is checked in
// topology_build.cpp.
void check_gossip_algorithm(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  const bool choco = a.kind == "choco-sgd" || a.kind == "adag-sgd" || a.kind == "choco-gossip";
  const bool push_sum = a.kind == "sgp" || a.kind == "choco-sgp" || a.kind == "adag-sgp";
  if (!choco && !push_sum) return;
  if (s.workers < 2) {
    throw InputError("workers",
                     a.kind + " needs at least 2 workers, got " + std::to_string(s.workers));
  }
  if (a.kind == "sgp" && a.compressor.kind != "none") {
    throw InputError(
        "algorithm.compressor.kind",
        "sgp sends uncompressed (x, w) pairs; must be \"none\", got \"" + a.compressor.kind + "\"");
  }
  if (a.kind == "choco-gossip" && s.model.kind != "consensus" && s.model.kind != "profile") {
    throw InputError("model.kind",
                     "choco-gossip only averages (no local steps); needs model kind "
                     "\"consensus\" or \"profile\", got \"" +
                         s.model.kind + "\" (use choco-sgd to train)");
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
  a.compressor.kind = j.at("compressor").at("kind").get<std::string>();
  a.compressor.error_feedback = j.at("compressor").at("error_feedback").get<bool>();
  a.compressor.options = j.at("compressor");
  // the SVRG family (keys present only for its kinds)
  if (j.contains("epoch_length")) a.epoch_length = j.at("epoch_length").get<std::int64_t>();
  if (j.contains("snapshot")) a.snapshot = j.at("snapshot").get<std::string>();
  if (j.contains("quantize")) a.quantize = j.at("quantize").get<std::string>();
  if (j.contains("quantize_snapshot")) a.quantize_snapshot = j.at("quantize_snapshot").get<bool>();
  if (j.contains("downlink_compressor")) {
    const json& down = j.at("downlink_compressor");
    a.downlink_compressor = CompressorSpec{down.at("kind").get<std::string>(),
                                           down.at("error_feedback").get<bool>(), down};
  }
  if (j.contains("sigma")) a.sigma = j.at("sigma").get<double>();
  if (j.contains("L")) a.L = j.at("L").get<double>();
  if (j.contains("option")) a.option = j.at("option").get<std::string>();
  if (j.contains("double_sampling")) a.double_sampling = j.at("double_sampling").get<bool>();
  // decentralized gossip (keys present only for their kinds)
  if (j.contains("consensus_step")) a.consensus_step = j.at("consensus_step").get<double>();
  if (j.contains("beta")) a.beta = j.at("beta").get<double>();
  if (j.contains("epsilon")) a.epsilon = j.at("epsilon").get<double>();
  if (j.contains("step_band")) a.step_band = j.at("step_band").get<double>();
  if (j.contains("order")) a.order = j.at("order").get<std::string>();
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
  if (a.nesterov && a.momentum == 0.0) {
    throw InputError("algorithm.nesterov", "requires algorithm.momentum > 0, got momentum 0");
  }
  if (!s.decentralized() && a.collective == "ring-allreduce") {
    // partial sums are re-encoded at every hop: only elementwise roundings are all-reducible
    if (a.compressor.kind != "none" && a.compressor.kind != "fp16") {
      throw InputError("algorithm.collective",
                       "ring-allreduce sums partial vectors hop by hop and needs an "
                       "all-reducible compressor (none or fp16), got \"" +
                           a.compressor.kind + "\"");
    }
    if (a.compressor.error_feedback) {
      throw InputError("algorithm.compressor.error_feedback",
                       "ring-allreduce sends chunks of varying length and cannot keep an "
                       "error-feedback residual; use allgather or parameter-server");
    }
  }
  check_compressor(s);
  check_svrg_family(s);
  check_gossip_algorithm(s);
  check_schedule(s);
  if (a.kind == "dpsgd") {
    if (a.compressor.kind != "none") {
      throw InputError(
          "algorithm.compressor.kind",
          "dpsgd sends uncompressed models; must be \"none\", got \"" + a.compressor.kind + "\"");
    }
    if (s.workers < 2) {
      throw InputError("workers",
                       "dpsgd needs at least 2 workers, got " + std::to_string(s.workers));
    }
  }
}

}  // namespace dlsim::sim::scenario_sections
