// Splitting the training set among workers, and drawing batches from a shard
// (docs/design.md §4 `data.partition`, §8).
#pragma once

#include <random>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Row indices of each worker's shard. A shard indexes into the one shared, read-only
/// training set; no worker ever holds a copy of its rows.
using Shards = std::vector<std::vector<Index>>;

/// Throws std::invalid_argument unless workers >= 1 and samples >= workers (every
/// partition gives each worker at least one sample).
void check_split(Index samples, int workers);

/// iid: a seeded shuffle of 0..samples-1 cut into `workers` contiguous shards of
/// equal size; the first samples mod workers shards get one sample more.
Shards partition_iid(Index samples, int workers, std::mt19937_64& rng);

/// dirichlet (Hsu, Qi, Brown 2019, arXiv:1909.06335): for every class k (a distinct label
/// value), worker proportions p_k ~ Dir(alpha·1_n), drawn as normalized Gamma(alpha, 1)
/// variables; the class's shuffled samples are cut at the rounded cumulative proportions.
/// Afterwards every empty worker takes one sample from the currently largest shard, so
/// every worker has at least one. Small alpha: few classes per worker; large: near iid.
Shards partition_dirichlet(const Vector& labels, int workers, double alpha, std::mt19937_64& rng);

/// dirichlet with balanced: true: equal-size non-iid shards of ⌊N/n⌋ rows drawn as the
/// AdaGossip reference code draws them (partition_balanced_dirichlet.cpp has the rule).
Shards partition_balanced_dirichlet(const Vector& labels, int workers, double alpha,
                                    std::mt19937_64& rng);

/// shards (McMahan et al., AISTATS 2017): stable sort by label, cut into
/// workers·per_worker equal contiguous shards (the first N mod S one larger), deal a seeded
/// random `per_worker` of them to every worker.
Shards partition_shards(const Vector& labels, int workers, int per_worker, std::mt19937_64& rng);

/// sorted: stable sort by label, then contiguous shards sized as for iid. No randomness.
Shards partition_sorted(const Vector& labels, int workers);

/// Batches drawn without replacement from a fresh shuffle of the shard every local
/// epoch. A batch never spans two shuffles: when fewer than `batch` rows remain, the
/// shard is reshuffled and the batch starts the new pass (so batch == shard size
/// gives the whole shard every time).
class BatchSampler {
 public:
  BatchSampler(std::vector<Index> shard, Index batch, std::mt19937_64 rng);
  /// The next batch's row indices; valid until the next call.
  std::span<const Index> next();
  /// The rows next() returns next, or none when next() reshuffles first (to prefetch).
  std::span<const Index> upcoming() const {
    if (cursor_ + batch_ > Index(order_.size())) return {};
    return {order_.data() + cursor_, std::size_t(batch_)};
  }
  Index batch_size() const { return batch_; }

 private:
  std::vector<Index> order_;
  Index batch_;
  Index cursor_;
  std::mt19937_64 rng_;
};

}  // namespace dlsim::models
