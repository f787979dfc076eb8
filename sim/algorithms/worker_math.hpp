// One sender's math: batch gradients on its shard and the encoding of its messages,
// with the wall time of each counted. For models without math (`profile`) vectors are
// empty and a message of d coordinates costs the compressor's bits for d.
#pragma once

#include <memory>

#include "models/data/partition.hpp"
#include "sim/algorithms/training.hpp"

namespace dlsim::sim {

class WorkerMath {
 public:
  /// `id` selects the shard (workers only) and the random streams.
  WorkerMath(Training& training, int id);

  /// g = ∇f_i(x; next batch); returns the cost to charge.
  models::ComputeCost gradient(const models::Vector& x, models::Vector& g);
  /// Encodes v; `dimension` is the simulated length when the model has no math.
  Payload encode(const models::Vector& v, models::Index dimension);
  /// Decodes a payload into out (left empty for models without math).
  void decode(const Message& m, models::Vector& out);

 private:
  Training& t_;
  std::unique_ptr<models::Compressor> compressor_;
  std::unique_ptr<models::BatchSampler> sampler_;
  Rng rng_;
};

}  // namespace dlsim::sim
