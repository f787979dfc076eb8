// svrg_keys.hpp: the SVRG family's shared keys and checks.
#include "sim/algorithms/svrg_keys.hpp"

#include "sim/algorithms/centralized.hpp"
#include "sim/scenario/compressor_keys.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

using namespace spec;

std::vector<Key> svrg_keys() {
  return {
      collective_key(aggregate_collective_doc()),
      optional("epoch_length", integer().ge(1),
               "Inner steps per epoch (absent: floor(train samples / (workers * batch_size)), "
               "one pass over a shard; required for models without data, whose snapshot "
               "gradient costs epoch_length batch gradients)."),
      compressor_key("downlink_compressor",
                     "parameter-server only: compression of the aggregate the server sends "
                     "back (absent: fp32, 32 bits per coordinate)."),
  };
}

Key snapshot_key() {
  return defaulted("snapshot", one_of({"last", "average"}), "last",
                   "The next snapshot: the last iterate, or the mean of the epoch's iterates (x "
                   "restarts there).");
}

Key quantize_snapshot_key() {
  return defaulted("quantize_snapshot", boolean(), false,
                   "Send the snapshot gradients with the compressor instead of fp32.");
}

void check_svrg_family(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.downlink_compressor) {
    if (a.collective != "parameter-server") {
      throw InputError(
          "algorithm.downlink_compressor",
          "only a parameter server sends a downlink; collective is \"" + a.collective + "\"");
    }
  }
  if (!a.epoch_length && s.data.source == "none") {
    throw InputError("algorithm.epoch_length",
                     "required for models without data (model.kind \"" + s.model.kind +
                         "\"): the epoch cannot be one pass over a shard");
  }
}

}  // namespace dlsim::sim
