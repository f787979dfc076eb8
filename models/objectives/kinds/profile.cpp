// Model `profile`: no math, only what timing needs (models/objectives/profile.hpp): a
// parameter count, or a list of layers (one tensor each, for per-tensor compression)
// with their FLOPs per sample, and a fixed compute time per batch.
#include <set>

#include "models/objectives/counts.hpp"
#include "models/objectives/kinds/options.hpp"
#include "models/objectives/profile.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> ProfileOptions::build(const ModelContext& /*context*/) const {
  return std::make_unique<Profile>(tensor_sizes, flops_per_sample, compute_seconds);
}

std::optional<std::int64_t> ProfileOptions::parameter_count(const DataShape& /*data*/) const {
  std::int64_t total = 0;
  for (Index n : tensor_sizes) total = saturating_add(total, n);
  return total;
}

namespace profile_model {

using nlohmann::json;
using namespace spec;

// Exactly one of `parameters` and `layers`; layer names are unique.
std::shared_ptr<const ModelOptions> read(const json& j) {
  auto o = std::make_shared<ProfileOptions>();
  const bool has_parameters = j.contains("parameters");
  const bool has_layers = j.contains("layers");
  if (has_parameters && has_layers)
    throw ModelConfigError("layers", "give either parameters or layers, not both");
  if (!has_parameters && !has_layers)
    throw ModelConfigError("parameters", "missing required key \"parameters\" (or give layers)");
  if (has_parameters) {
    o->tensor_sizes = {j.at("parameters").get<Index>()};
  } else {
    std::set<std::string> names;
    const json& layers = j.at("layers");
    for (std::size_t i = 0; i < layers.size(); ++i) {
      const json& layer = layers[i];
      const std::string name = layer.at("name").get<std::string>();
      if (!names.insert(name).second)
        throw ModelConfigError("layers[" + std::to_string(i) + "].name",
                               "duplicate layer name \"" + name + "\"");
      o->tensor_sizes.push_back(layer.at("parameters").get<Index>());
      o->flops_per_sample += layer.at("flops").get<double>();
    }
  }
  o->compute_seconds = j.at("compute_time").get<double>();
  return o;
}

std::vector<Key> keys() {
  const Object layer = plain({
      required("name", string().nonempty(), "Layer name (unique), e.g. \"layer1.0.conv1\"."),
      required("parameters", integer().ge(1), "Parameters of this layer (one tensor)."),
      defaulted("flops", number().ge(0), 0,
                "Forward + backward FLOPs of this layer per sample (a multiply-add counts 2)."),
  });
  Key compute_time = defaulted("compute_time", time().ge(0), "10ms",
                               "Fixed compute time of one batch gradient, added to the layers' "
                               "FLOPs at compute.speed (0: FLOPs only, or pure communication).");
  compute_time.dynamic = [](const json& root) {
    return lookup(root, {"model", "layers"}).is_null() ? json("10ms") : json("0s");
  };
  compute_time.default_doc = "\"10ms\" without layers, 0 with layers";
  return {
      optional("parameters", integer().ge(1),
               "Number of model parameters (fp32 each), as one tensor. Give this or layers."),
      optional("layers", array_of(object(layer)).nonempty(),
               "The model's layers, input to output, as an alternative to parameters: each is one "
               "tensor for per_tensor compression, and their FLOPs per sample times the batch "
               "size become compute time (tools/dlsim-profile writes this list from a "
               "torchvision model)."),
      compute_time,
  };
}

const ModelRegistration registered{{
    .name = "profile",
    .doc = "No math: a parameter count (or a list of layers with their FLOPs) and a compute time "
           "per batch, for timing what-ifs.",
    .keys = keys(),
    .facts = {.needs_data = false, .has_values = false, .has_loss = false},
    .read = read,
    .order = 8,
}};

}  // namespace profile_model
}  // namespace dlsim::models
