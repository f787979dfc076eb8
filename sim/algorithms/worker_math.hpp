// One sender's math: batch gradients on its shard and the encoding of its messages,
// with the wall time of each counted. For models without math (`profile`) vectors are
// empty and a message of d coordinates costs the compressor's bits for d.
//
// Compression state lives per message stream: each stream id gets its own compressor
// instance (error feedback keeps one residual per stream) and its own random stream
// (seed, "compress", node) for stream 0, (seed, "compress/<id>", node) otherwise.
// Algorithms with one outgoing stream per sender use stream 0; e.g. a parameter
// server's uplink and downlink, or CHOCO's model differences, would use separate ids.
#pragma once

#include <map>
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
  /// Encodes v with the scenario's compressor on message stream `stream`; `dimension`
  /// is the simulated length when the model has no math.
  Payload encode(const models::Vector& v, models::Index dimension, int stream = 0);
  /// Decodes a payload of encode() into out (left empty for models without math).
  void decode(const Message& m, models::Vector& out);

  /// For messages an algorithm sends exactly (a parameter server's model broadcast):
  /// fp32 whatever the scenario's compressor, 32 bits per coordinate.
  Payload encode_fp32(const models::Vector& v, models::Index dimension);
  void decode_fp32(const Message& m, models::Vector& out);

 private:
  models::Compressor& stream_compressor(int stream);

  Training& t_;
  int id_;
  std::map<int, std::unique_ptr<models::Compressor>> compressors_;  // per stream
  std::map<int, Rng> rngs_;                                         // per stream
  std::unique_ptr<models::Compressor> decoder_;  // decode is stateless: one serves all
  models::Fp32Compressor fp32_;
  Rng no_draws_{0};  // fp32 draws nothing
  std::unique_ptr<models::BatchSampler> sampler_;
};

}  // namespace dlsim::sim
