// The keys of the sections that say how a run is timed, ended and recorded
// (docs/design.md §4): `compute`, `stop`, `metrics` and `sweep`. Part of the key table
// (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object compute_section() {
  return plain({
      defaulted("speed", flops().gt(0), "10GFLOPS",
                "FLOP/s of every worker and of the parameter server."),
      defaulted("per_worker", array_of(number().gt(0)), json::array(),
                "Time factor per worker (4: that worker's math takes 4x as long); empty: all 1."),
      defaulted("jitter", number().ge(0), 0, "Sigma of a lognormal factor on every compute time."),
  });
}

Object stop_section() {
  Object stop = plain({
      optional("epochs", number().gt(0), "Stop after this many epochs."),
      optional("iterations", integer().ge(1), "Stop after this many iterations."),
      optional("sim_time", time().gt(0), "Stop at this simulated time."),
      optional("bits", size().gt(0), "Stop when this many payload bits have been sent."),
      optional("target_loss", number(), "Stop when the train loss reaches this value."),
  });
  stop.min_keys = 1;
  return stop;
}

Object metrics_section() {
  Object every = plain({
      optional("iterations", integer().ge(1), "Record every this many iterations."),
      optional("epochs", number().gt(0), "Record every this many epochs."),
      optional("sim_time", time().gt(0), "Record every this much simulated time."),
  });
  every.min_keys = 1;
  every.max_keys = 1;
  return plain({
      defaulted("every", object(every), json{{"iterations", 10}},
                "How often a metrics row is recorded (exactly one key)."),
      defaulted("test", boolean(), true, "Evaluate on the test set (when there is one)."),
      optional("eval_samples", integer().ge(1),
               "Measure train_loss on a fixed seeded subsample of this many training samples "
               "(absent: the whole training set)."),
      defaulted("per_worker", boolean(), false,
                "Also write workers.csv: per metrics point one row per worker with that "
                "worker's own model evaluated (train_loss, test_loss, test_accuracy, "
                "consensus_distance = ||x_i - x_bar||^2). Decentralized algorithms only; "
                "costs one evaluation per worker (eval_samples helps)."),
  });
}

Object sweep_section() {
  Object grid;
  grid.map_values = std::make_shared<const Value>(array_of(any()).nonempty());
  return plain({
      defaulted("grid", object(grid), json::object(),
                "Dotted scenario key -> list of values; every combination is run."),
      defaulted("repeat", integer().ge(1), 1, "Runs per grid point (seeds seed, seed+1, ...)."),
  });
}

}  // namespace dlsim::sim::spec::sections
