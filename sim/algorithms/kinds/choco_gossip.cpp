// Algorithm `choco-gossip`: CHOCO-gossip (Koloskova, Stich, Jaggi, ICML 2019;
// docs/algorithms.md §3): CHOCO-SGD without local steps, the pure averaging of every
// worker's start; the standard way to tune the consensus step γ on a graph.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {
namespace choco_gossip_algorithm {

void check(const Scenario& s) {
  if (s.model.facts().needs_data) {  // only models without data have nothing to train
    std::vector<std::string> dataless =
        models::model_kinds_where([](const models::ModelFacts& f) { return !f.needs_data; });
    for (std::string& kind : dataless) kind = "\"" + kind + "\"";
    throw InputError("model.kind",
                     "choco-gossip only averages (no local steps); needs model kind " +
                         messages::join(dataless, " or ") + ", got \"" + s.model.kind +
                         "\" (use choco-sgd to train)");
  }
}

const AlgorithmRegistration registered{{
    .name = "choco-gossip",
    .doc = "CHOCO-gossip (Koloskova et al. 2019): choco-sgd without local steps (pure "
           "averaging; model.kind consensus or profile), to tune consensus_step.",
    .keys = {consensus_step_key()},
    // x, a decoded message (none with top-k), the difference x - x_hat (no gradient, no
    // momentum)
    .facts =
        choco_family_facts("choco-sgp (compressed push-sum; with model consensus it only averages)",
                           {.worker_vectors = 3, .decoded_vector = true}),
    .read = ChocoOptions::read,
    .check = check,
    .launch = [](Engine& e, Training& t) { launch_choco(e, t, {.local_steps = false}); },
}};

}  // namespace choco_gossip_algorithm
}  // namespace dlsim::sim
