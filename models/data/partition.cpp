// iid partition and the per-worker batch sampler (DESIGN.md §8).
//   partition_iid: shuffle 0..N−1, cut into n contiguous shards; shard i has
//                  ⌊N/n⌋ + [i < N mod n] rows.
//   BatchSampler: without replacement within a pass; a fresh shuffle starts every pass
//                 and a batch never straddles two passes.
#include "models/data/partition.hpp"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <string>

namespace dlsim::models {

Shards partition_iid(Index samples, int workers, std::mt19937_64& rng) {
  if (workers < 1) throw std::invalid_argument("partition: workers must be >= 1");
  if (samples < workers) {
    throw std::invalid_argument("partition: " + std::to_string(samples) +
                                " training samples cannot be split among " +
                                std::to_string(workers) + " workers");
  }
  std::vector<Index> order(static_cast<std::size_t>(samples));
  std::iota(order.begin(), order.end(), Index(0));
  std::shuffle(order.begin(), order.end(), rng);

  const Index base = samples / workers;
  const Index extra = samples % workers;
  Shards shards(static_cast<std::size_t>(workers));
  auto begin = order.begin();
  for (int i = 0; i < workers; ++i) {
    const Index size = base + (i < extra ? 1 : 0);
    shards[std::size_t(i)].assign(begin, begin + size);
    begin += size;
  }
  return shards;
}

BatchSampler::BatchSampler(std::vector<Index> shard, Index batch, std::mt19937_64 rng)
    : order_(std::move(shard)), batch_(batch), cursor_(0), rng_(rng) {
  if (order_.empty()) throw std::invalid_argument("batch sampler: empty shard");
  if (batch < 1) throw std::invalid_argument("batch sampler: batch size must be >= 1");
  batch_ = std::min(batch_, Index(order_.size()));  // larger batches take the whole shard
  std::shuffle(order_.begin(), order_.end(), rng_);
}

std::span<const Index> BatchSampler::next() {
  if (cursor_ + batch_ > Index(order_.size())) {
    std::shuffle(order_.begin(), order_.end(), rng_);
    cursor_ = 0;
  }
  const std::span<const Index> batch(order_.data() + cursor_, std::size_t(batch_));
  cursor_ += batch_;
  return batch;
}

}  // namespace dlsim::models
