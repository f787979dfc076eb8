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
               "one pass over a shard; alpc-svrg: Katyusha's m = 2n, floor(2 * train samples "
               "/ (workers * batch_size)), two passes; required for models without data, "
               "whose snapshot gradient costs epoch_length batch gradients)."),
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

std::shared_ptr<const AlgorithmOptions> SvrgFamilyOptions::read(const nlohmann::json& j) {
  auto o = std::make_shared<SvrgFamilyOptions>();
  if (j.contains("epoch_length")) o->epoch_length = j.at("epoch_length").get<std::int64_t>();
  if (j.contains("downlink_compressor")) {
    try {
      o->downlink = models::parse_compressor(j.at("downlink_compressor"));
    } catch (const models::CompressorConfigError& e) {
      throw InputError("algorithm.downlink_compressor." + e.key(), e.what());
    }
  }
  o->average_snapshot = j.contains("snapshot") && j.at("snapshot") == "average";
  o->send_difference = j.contains("quantize") && j.at("quantize") == "difference";
  if (j.contains("quantize_snapshot")) o->quantize_snapshot = j.at("quantize_snapshot").get<bool>();
  if (j.contains("sigma")) o->sigma = j.at("sigma").get<double>();
  if (j.contains("L")) o->L = j.at("L").get<double>();
  if (j.contains("option")) o->option_one = j.at("option") == "I";
  if (j.contains("double_sampling")) o->double_sampling = j.at("double_sampling").get<bool>();
  return o;
}

void check_svrg_family(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  const SvrgFamilyOptions& o = a.options_as<SvrgFamilyOptions>();
  if (o.downlink) {
    if (a.collective != "parameter-server") {
      throw InputError(
          "algorithm.downlink_compressor",
          "only a parameter server sends a downlink; collective is \"" + a.collective + "\"");
    }
  }
  if (!o.epoch_length && !s.data.facts().has_data) {
    throw InputError("algorithm.epoch_length",
                     "required for models without data (model.kind \"" + s.model.kind +
                         "\"): the epoch cannot be one pass over a shard");
  }
}

}  // namespace dlsim::sim
