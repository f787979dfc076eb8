// Keys that several gossip kinds share (CHOCO-SGD, AdaG-SGD, CHOCO-gossip, adag-sgp):
// one definition each, so that the key reference documents them once.
#pragma once

#include <memory>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "sim/scenario/algorithm_registry.hpp"
#include "spec/key_table.hpp"

namespace dlsim::sim {

/// consensus_step: CHOCO's gamma.
inline spec::Key consensus_step_key() {
  using namespace spec;
  return defaulted("consensus_step", number().gt(0), 1.0,
                   "CHOCO's consensus step gamma, usually in (0, 1] (choco-sgp: at most 1); "
                   "adag-sgd's and adag-sgp's upper bound before the per-coordinate scaling "
                   "(tune it with a sweep over choco-gossip).");
}

/// order: the step order of the AdaGossip code or of the original CHOCO code.
inline spec::Key choco_order_key() {
  using namespace spec;
  return defaulted(
      "order", one_of({"adagossip", "choco-paper"}), "adagossip",
      "adagossip: apply last round's messages, consensus step, local step, compress and send "
      "(the AdaGossip code); choco-paper: local step, consensus step, compress and send, "
      "receive (the original CHOCO code).");
}

/// The facts of the CHOCO family (choco-sgd, adag-sgd, choco-gossip): public copies on
/// undirected graphs with doubly stochastic weights; `alternative` is the push-sum kind to
/// suggest for directed graphs; `memory` the kind's own vectors besides the copies.
inline AlgorithmFacts choco_family_facts(std::string alternative, StateMemory memory) {
  return {.decentralized = true,
          .directed_alternative = std::move(alternative),
          .weights = WeightsNeeded::doubly_stochastic,
          .node_failures = true,
          .min_workers = 2,
          .gossip_memory = {GossipMemory::Layout::public_copies, 2},
          .memory = memory};
}

/// The options of the CHOCO family (choco-sgd, adag-sgd, choco-gossip), read once. Keys a
/// kind does not have leave their member unused (choco-gossip has no order; only adag-sgd
/// has beta and epsilon).
struct ChocoOptions final : AlgorithmOptions {
  double consensus_step = 0;       // gamma
  bool choco_paper_order = false;  // order: choco-paper
  double beta = 0;                 // adag-sgd
  double epsilon = 0;              // adag-sgd

  static std::shared_ptr<const AlgorithmOptions> read(const nlohmann::json& a) {
    auto o = std::make_shared<ChocoOptions>();
    o->consensus_step = a.at("consensus_step").get<double>();
    o->choco_paper_order = a.contains("order") && a.at("order") == "choco-paper";
    if (a.contains("beta")) o->beta = a.at("beta").get<double>();
    if (a.contains("epsilon")) o->epsilon = a.at("epsilon").get<double>();
    return o;
  }
};

/// The options of compressed push-sum (choco-sgp, adag-sgp), read once; beta, epsilon and
/// step_band are adag-sgp's.
struct PushSumOptions final : AlgorithmOptions {
  double consensus_step = 0;
  double beta = 0;
  double epsilon = 0;
  double step_band = 1;

  static std::shared_ptr<const AlgorithmOptions> read(const nlohmann::json& a) {
    auto o = std::make_shared<PushSumOptions>();
    o->consensus_step = a.at("consensus_step").get<double>();
    if (a.contains("beta")) o->beta = a.at("beta").get<double>();
    if (a.contains("epsilon")) o->epsilon = a.at("epsilon").get<double>();
    if (a.contains("step_band")) o->step_band = a.at("step_band").get<double>();
    return o;
  }
};

}  // namespace dlsim::sim
