// Model `consensus`: no data; worker i starts from its own N(0, I) vector and the loss is
// the mean squared distance to the average of the starts (models/objectives/consensus.hpp),
// for gossip-averaging studies.
#include "models/objectives/consensus.hpp"
#include "models/objectives/kinds/options.hpp"

namespace dlsim::models {

std::unique_ptr<Objective> ConsensusOptions::build(const ModelContext& c) const {
  return std::make_unique<Consensus>(dimension, c.workers, *c.starts);
}

std::optional<std::int64_t> ConsensusOptions::parameter_count(const DataShape& /*data*/) const {
  return dimension;
}

// Every worker's start z_i (consensus.hpp) is kept for the whole run.
ModelMemory ConsensusOptions::memory(const DataShape& /*data*/, std::int64_t /*batch*/) const {
  return {.worker_values = double(dimension)};
}

namespace consensus_model {

std::shared_ptr<const ModelOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<ConsensusOptions>();
  o->dimension = j.at("dimension").get<std::int64_t>();
  return o;
}

const ModelRegistration registered{{
    .name = "consensus",
    .doc = "No data: worker i starts from its own N(0, I) vector; train_loss = (1/n) sum_i "
           "||x_i - mean of the starts||^2 (gossip-averaging studies).",
    .keys = {spec::defaulted("dimension", spec::integer().ge(1), 10,
                             "Length of every worker's vector.")},
    .facts = {.needs_data = false,
              .needs_decentralized = true,
              .decentralized_reason = "every worker holds its own vector"},
    .read = read,
    .order = 7,
}};

}  // namespace consensus_model
}  // namespace dlsim::models
