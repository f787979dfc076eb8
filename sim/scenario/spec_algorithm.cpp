// The keys of the `algorithm` section (docs/design.md §4): the keys every algorithm
// accepts (step size and its schedule, momentum, the uplink compressor whose defaults
// follow algorithm.kind), and one variant per registered algorithm with the keys it
// declares (sim/scenario/algorithm_registry.hpp). Part of the key table (spec.cpp).
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object algorithm_section() {
  const Object compressor = compressor_object();
  // The uplink compressor's defaults follow algorithm.kind (the sgd aliases and the
  // low-precision SVRG kinds name their compressor); the downlink's do not.
  Object uplink = compressor;
  const auto facts_of = [](const json& root) -> const AlgorithmFacts* {
    const json kind = lookup(root, {"algorithm", "kind"});
    const AlgorithmInfo* info =
        AlgorithmRegistry::instance().find(kind.is_string() ? kind.get<std::string>() : "");
    return info ? &info->facts : nullptr;
  };
  const AlgorithmFacts plain_facts;
  std::string compressor_doc, feedback_doc;
  for (const AlgorithmInfo* info : AlgorithmRegistry::instance().all()) {
    if (info->facts.default_compressor != plain_facts.default_compressor)
      compressor_doc += info->facts.default_compressor + " for algorithm " + info->name + ", ";
    if (info->facts.default_error_feedback != plain_facts.default_error_feedback)
      feedback_doc += "true for algorithm " + info->name + ", ";
  }
  uplink.discriminator->dynamic = [facts_of, plain_facts](const json& root) {
    const AlgorithmFacts* facts = facts_of(root);
    return json(facts ? facts->default_compressor : plain_facts.default_compressor);
  };
  uplink.discriminator->default_doc = compressor_doc + "else " + plain_facts.default_compressor;
  for (Key& key : uplink.keys) {
    if (key.name != "error_feedback") continue;
    key.dynamic = [facts_of, plain_facts](const json& root) {
      const AlgorithmFacts* facts = facts_of(root);
      return json(facts ? facts->default_error_feedback : plain_facts.default_error_feedback);
    };
    key.default_doc = feedback_doc + "else false";
  }
  // Learning-rate schedules (sim/algorithms/lr_schedule.hpp): eta_k for iteration k of T.
  const Object schedule = with_kinds(
      kind_key("kind", "constant", "How the step size changes over the run."),
      {defaulted("warmup", number().ge(0), 0,
                 "Linear warm-up over the first W iterations: eta_k = eta (k + 1) / W for k < "
                 "W. Below 1 a fraction of the run (W = round(warmup T), needs stop.iterations "
                 "or stop.epochs), from 1 on a whole number of iterations; 0: none.")},
      {{"constant", "eta_k = step_size.", {}},
       {"step",
        "Step decay: eta_k = step_size * factor^(milestones passed), milestone m at "
        "iteration round(m T) of a run of T iterations (stop.iterations or stop.epochs).",
        {required("milestones", array_of(number().gt(0).lt(1)),
                  "Increasing fractions of the run, in (0, 1), e.g. [0.5, 0.75]."),
         defaulted("factor", number().gt(0).le(1), 0.1,
                   "Multiplier of the step size at each milestone.")}}});
  const std::vector<Key> common = {
      defaulted("step_size", number().gt(0), 0.01, "Learning rate."),
      defaulted("batch_size", integer().ge(1), 32, "Samples per local gradient."),
      defaulted("momentum", number().ge(0).lt(1), 0, "Heavy-ball momentum."),
      defaulted("nesterov", boolean(), false, "Nesterov momentum (needs momentum > 0)."),
      defaulted("weight_decay", number().ge(0), 0,
                "Weight decay wd: wd * x is added to the gradient before momentum (coupled, as in "
                "torch's SGD); model.l2 is the objective's own term."),
      defaulted("compressor", object(uplink), json::object(),
                "Compression of every message a worker sends."),
      optional("schedule", object(schedule),
               "Learning-rate schedule eta_k of the local step of iteration k "
               "(sim/algorithms/lr_schedule.hpp; absent: constant step_size). alpc-svrg, whose "
               "steps derive from L and sigma, accepts only constant without warmup."),
  };
  std::vector<Variant> variants;
  for (const AlgorithmInfo* info : AlgorithmRegistry::instance().all()) {
    std::vector<Key> keys = info->keys;
    for (Key& key : keys) {
      if (is_compressor_key(key)) key.value = object(compressor);
    }
    variants.push_back({info->name, info->doc, std::move(keys)});
  }
  return with_kinds(kind_key("kind", "sgd", "The distributed training algorithm."), common,
                    std::move(variants));
}

}  // namespace dlsim::sim::spec::sections
