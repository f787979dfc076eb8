// Algorithm `alpc-svrg`: Katyusha momentum (Allen-Zhu, "Katyusha: The First Direct
// Acceleration of Stochastic Gradient Methods", STOC 2017) over LPC-SVRG's low-precision
// differences (Yu, Wu, Huang, AISTATS 2019, arXiv 1901.08924; docs/algorithms.md §2):
// τ2 = 1/2, τ1 = min(√(mσ/(3L)), 1/2), α = 1/(3τ1L), m = epoch_length.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/svrg_keys.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {
namespace alpc_svrg_algorithm {

using namespace spec;

void check(const Scenario& s) {
  check_svrg_family(s);
  const AlgorithmSpec& a = s.algorithm;
  const SvrgFamilyOptions& o = a.options_as<SvrgFamilyOptions>();
  if (a.momentum != 0.0 || a.weight_decay != 0.0) {
    throw InputError(a.momentum != 0.0 ? "algorithm.momentum" : "algorithm.weight_decay",
                     "alpc-svrg has its own (Katyusha) momentum and uses model.l2 for "
                     "regularization; must be 0");
  }
  if (o.double_sampling && !o.option_one) {
    throw InputError("algorithm.double_sampling",
                     "the second sample feeds the option-I y-step; option II has none");
  }
  const models::ModelFacts& model = s.model.facts();
  const bool has_math = model.has_values;
  if (has_math && !o.sigma && s.model.options->regularization().l2 <= 0.0) {
    throw InputError("algorithm.sigma",
                     "Katyusha needs the strong convexity sigma > 0: give algorithm.sigma "
                     "or model.l2 > 0 (sigma defaults to model.l2, which is 0)");
  }
  if (has_math && !o.L && !model.smoothness_estimable) {
    std::vector<std::string> estimable = models::model_kinds_where(
        [](const models::ModelFacts& f) { return f.smoothness_estimable; });
    std::string kinds = estimable.empty() ? "" : estimable.back();
    if (estimable.size() > 1) {
      estimable.pop_back();
      kinds = messages::join(estimable, ", ") + " and " + kinds;
    }
    throw InputError("algorithm.L", "cannot be estimated for model.kind \"" + s.model.kind +
                                        "\" (" + kinds + " only); give it");
  }
  const AlgorithmSpec::Schedule& schedule = a.schedule;
  if (schedule.kind != "constant" || schedule.warmup != 0) {
    throw InputError("algorithm.schedule",
                     "alpc-svrg derives its steps from L and sigma (Katyusha); only "
                     "{\"kind\": \"constant\"} without warmup");
  }
}

const AlgorithmRegistration registered{{
    .name = "alpc-svrg",
    .doc = "ALPC-SVRG (Yu, Wu, Huang 2019): Katyusha momentum (Allen-Zhu 2017) over "
           "low-precision differences grad f_i(x;B) - grad f_i(snapshot;B); tau2 = 1/2, tau1 = "
           "min(sqrt(m sigma/(3L)), 1/2), alpha = 1/(3 tau1 L), m = epoch_length.",
    .keys = svrg_keys() +
            std::vector<Key>{
                quantize_snapshot_key(),
                optional("sigma", number().gt(0),
                         "Strong convexity (absent: model.l2, which must then be > 0)."),
                optional("L", number().gt(0),
                         "Smoothness (absent: lambda_max of the Hessian at 0 on the training "
                         "set by power iteration; least-squares, logistic and softmax only)."),
                defaulted("option", one_of({"I", "II"}), "I",
                          "y-step: I y = prox(x - grad/(3L)), II y = x + tau1 (z' - z)."),
                defaulted("double_sampling", boolean(), false,
                          "Send two independent encodings of every inner message, one for the "
                          "z-step, one for the y-step (option I; bits doubled).")},
    // svrg's and Katyusha's y, z and their weighted sum (alpc_svrg.cpp)
    .facts = {.memory = {.worker_vectors = 14.5, .server_vectors = 5, .shard_gradients = true},
              .default_compressor = kLowPrecisionCompressor},
    .read = SvrgFamilyOptions::read,
    .check = check,
    .launch = launch_alpc_svrg,
}};

}  // namespace alpc_svrg_algorithm
}  // namespace dlsim::sim
