// The collective of the SVRG family (svrg, prox-svrg, lpc-svrg, alpc-svrg;
// ALGORITHMS.md §2): in every round each worker contributes one vector and every worker
// gets back the same mean (1/n) Σ_i decode(encode(v_i)), summed in worker order, so the
// replicated state (model, snapshot, Katyusha sequences) stays identical on all workers
// and worker 0's replica is the one metrics evaluate.
//   parameter-server: v_i → server (node n); the server sums the decoded messages, divides
//     by n and sends the aggregate back, fp32 by default or with `downlink_compressor`
//     (its own stream on the server: error feedback keeps a downlink residual);
//   allgather: every worker sends its message to every other worker;
//   ring-allreduce: reduce-scatter + all-gather of n chunks (all-reducible formats only:
//     none, fp16, and the fp32 rounds).
// A round's format says how its uplink messages are encoded: with the scenario's
// compressor on one of the sender's message streams, or exactly in fp32 (the snapshot
// gradient μ). Round r's messages carry tag r (ring: r·2(n−1) + step).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "sim/algorithms/training.hpp"
#include "sim/algorithms/worker_math.hpp"

namespace dlsim::sim {

struct RoundFormat {
  bool fp32 = false;  // exact fp32 (32 bits per coordinate) instead of the compressor
  int stream = 0;     // the sender's compressor stream (ignored for fp32)
};

/// Which format round r uses; the workers and the parameter server must agree.
using RoundSchedule = std::function<RoundFormat(std::uint64_t round)>;

class MeanExchange {
 public:
  /// For worker `id`, whose messages `math` encodes.
  MeanExchange(Training& training, int id, WorkerMath& math);
  /// mean ← (1/n) Σ_j decode(encode_j(v_j)) for round `round` (empty for models
  /// without math; `dimension` is then the simulated message length).
  Task<void> mean(std::uint64_t round, const models::Vector& mine, RoundFormat format,
                  models::Vector& mean);

 private:
  Payload encode(const models::Vector& v, models::Index dimension, RoundFormat format);
  void decode(const Message& m, RoundFormat format, models::Vector& out);
  Task<void> allgather(std::uint64_t round, const models::Vector& mine, RoundFormat format,
                       models::Vector& mean);
  Task<void> ring(std::uint64_t round, const models::Vector& mine, RoundFormat format,
                  models::Vector& mean);
  Task<void> via_server(std::uint64_t round, const models::Vector& mine, RoundFormat format,
                        models::Vector& mean);

  Training& t_;
  int id_;
  WorkerMath& math_;
  std::vector<NodeId> others_;
  std::unique_ptr<models::Compressor> downlink_decoder_;  // null: fp32 downlink
  models::Vector ring_sum_;                               // ring(): buffers kept between rounds
  std::vector<models::Vector> ring_chunks_;               // ... one per chunk
};

/// Spawns the parameter server of the SVRG family (node n): round after round it waits
/// for the n workers' messages, averages them and sends the aggregate back.
void spawn_mean_server(Engine& engine, Training& training, RoundSchedule schedule);

/// Inner steps per epoch: algorithm.epoch_length, or by default one pass over a shard,
/// max(1, floor(train samples / (workers · batch))).
std::int64_t epoch_length(const Training& training);

/// Cost of the full gradient on worker `id`'s shard: the objective's cost for the whole
/// shard; models without data (profile) are charged epoch_length batch gradients.
models::ComputeCost full_gradient_cost(const Training& training, int id);

/// g = ∇f_id(x) on worker `id`'s whole shard (the snapshot gradient; empty without math).
void full_gradient(const Training& training, int id, const models::Vector& x, models::Vector& g);

/// The variance-reduction term of one inner step: a fresh batch B of worker `id`'s shard
/// (stream (seed, "batches", id), as for sgd) and d = ∇f_id(x; B) − ∇f_id(ỹ; B), the same
/// batch at both points. Costs two batch gradients.
class BatchDifference {
 public:
  BatchDifference(const Training& training, int id);
  models::ComputeCost operator()(const models::Vector& x, const models::Vector& snapshot,
                                 models::Vector& difference);

 private:
  const Training& t_;
  std::unique_ptr<models::BatchSampler> sampler_;
  models::Vector at_snapshot_;
};

}  // namespace dlsim::sim
