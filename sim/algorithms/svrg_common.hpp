// The SVRG family's shared pieces (svrg, prox-svrg, lpc-svrg, alpc-svrg; docs/algorithms.md
// §2): its collective, the epoch length, the snapshot gradient and the paired batch
// gradients of the variance-reduction term.
//
// The collective (sim/collectives/): in every round each worker contributes one vector and
// every worker gets back the same mean (1/n) Σ_i decode(encode(v_i)), so the replicated
// state (model, snapshot, Katyusha sequences) stays identical on all workers and worker
// 0's replica is the one metrics evaluate. A round's format (RoundFormat) says how its
// messages are encoded: with the scenario's compressor on one of the sender's streams, or
// exactly in fp32 (the snapshot gradient μ). Over a parameter server the aggregate comes
// back in fp32, or with `downlink_compressor`; ring all-reduce takes all-reducible formats
// only (none, fp16, and the fp32 rounds).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "sim/collectives/collective.hpp"
#include "sim/runtime/training.hpp"

namespace dlsim::sim {

/// The collective `kind` ("parameter-server", "allgather", "ring-allreduce") as the SVRG
/// family uses it: every worker gets the mean (over a parameter server through
/// `downlink`, fp32 when absent); the ring simulates every transfer.
std::shared_ptr<Collective> svrg_collective(Training& training, const std::string& kind,
                                            const std::optional<CompressorSpec>& downlink);

/// Inner steps per epoch: algorithm.epoch_length, or by default `shard_passes` passes over
/// a shard, max(1, floor(shard_passes · train samples / (workers · batch))).
std::int64_t epoch_length(const Training& training, std::int64_t shard_passes = 1);

/// Cost of the full gradient on worker `id`'s shard: the objective's cost for the whole
/// shard; models without data (profile) are charged `epoch` gradients of `batch` samples.
models::ComputeCost full_gradient_cost(const Training& training, int id, std::int64_t batch,
                                       std::int64_t epoch);

/// g = ∇f_id(x) on worker `id`'s whole shard (the snapshot gradient; empty without math).
void full_gradient(const Training& training, int id, const models::Vector& x, models::Vector& g);

/// The variance-reduction term of one inner step: a fresh batch B of `batch` samples of
/// worker `id`'s shard (stream (seed, "batches", id), as for sgd) and
/// d = ∇f_id(x; B) − ∇f_id(ỹ; B), the same batch at both points. Costs two batch gradients.
class BatchDifference {
 public:
  BatchDifference(const Training& training, int id, std::int64_t batch);
  models::ComputeCost operator()(const models::Vector& x, const models::Vector& snapshot,
                                 models::Vector& difference);

 private:
  const Training& t_;
  std::int64_t batch_;
  bool computes_;  // Training::computes(id)
  std::unique_ptr<models::BatchSampler> sampler_;
  models::Vector at_snapshot_;
};

}  // namespace dlsim::sim
