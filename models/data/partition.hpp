// Splitting the training set among workers, and drawing batches from a shard
// (DESIGN.md §4 `data.partition`, §8).
#pragma once

#include <random>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Row indices of each worker's shard.
using Shards = std::vector<std::vector<Index>>;

/// iid: a seeded shuffle of 0..samples-1 cut into `workers` contiguous shards of
/// equal size; the first samples mod workers shards get one sample more.
Shards partition_iid(Index samples, int workers, std::mt19937_64& rng);

/// Batches drawn without replacement from a fresh shuffle of the shard every local
/// epoch. A batch never spans two shuffles: when fewer than `batch` rows remain, the
/// shard is reshuffled and the batch starts the new pass (so batch == shard size
/// gives the whole shard every time).
class BatchSampler {
 public:
  BatchSampler(std::vector<Index> shard, Index batch, std::mt19937_64 rng);
  /// The next batch's row indices; valid until the next call.
  std::span<const Index> next();
  Index batch_size() const { return batch_; }

 private:
  std::vector<Index> order_;
  Index batch_;
  Index cursor_;
  std::mt19937_64 rng_;
};

}  // namespace dlsim::models
