// iid partition and the per-worker batch sampler (docs/design.md §8).
//   partition_iid: shuffle 0..N−1, cut into n contiguous shards; shard i has
//                  ⌊N/n⌋ + [i < N mod n] rows.
//   BatchSampler: without replacement within a pass; a fresh shuffle starts every pass
//                 and a batch never straddles two passes.
#include "models/data/partition.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "rng/distributions.hpp"
#include "rng/shuffle.hpp"

namespace dlsim::models {

void check_split(Index samples, int workers) {
  if (workers < 1) throw std::invalid_argument("partition: workers must be >= 1");
  if (samples < workers)
    throw std::invalid_argument("partition: " + std::to_string(samples) +
                                " training samples cannot be split among " +
                                std::to_string(workers) + " workers");
}

Shards partition_iid(Index samples, int workers, std::mt19937_64& rng) {
  check_split(samples, workers);
  std::vector<Index> order(static_cast<std::size_t>(samples));
  std::iota(order.begin(), order.end(), Index(0));
  rng::shuffle(order.begin(), order.end(), rng);

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
  rng::shuffle(order_.begin(), order_.end(), rng_);
}

std::span<const Index> BatchSampler::next() {
  if (cursor_ + batch_ > Index(order_.size())) {
    rng::shuffle(order_.begin(), order_.end(), rng_);
    cursor_ = 0;
  }
  const std::span<const Index> batch(order_.data() + cursor_, std::size_t(batch_));
  cursor_ += batch_;
  return batch;
}

}  // namespace dlsim::models

// dirichlet, shards and sorted (partition.hpp).
namespace dlsim::models {

namespace {

std::vector<Index> sorted_by_label(const Vector& labels) {
  std::vector<Index> order(static_cast<std::size_t>(labels.size()));
  std::iota(order.begin(), order.end(), Index(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](Index a, Index b) { return labels(a) < labels(b); });
  return order;
}

// `order` cut into `parts` contiguous pieces, the first size mod parts one larger.
Shards cut(const std::vector<Index>& order, int parts) {
  const Index base = Index(order.size()) / parts, extra = Index(order.size()) % parts;
  Shards pieces(static_cast<std::size_t>(parts));
  auto begin = order.begin();
  for (int i = 0; i < parts; ++i) {
    const Index size = base + (i < extra ? 1 : 0);
    pieces[std::size_t(i)].assign(begin, begin + size);
    begin += size;
  }
  return pieces;
}

}  // namespace

Shards partition_dirichlet(const Vector& labels, int workers, double alpha, std::mt19937_64& rng) {
  check_split(labels.size(), workers);
  if (!(alpha > 0)) throw std::invalid_argument("partition: dirichlet alpha must be > 0");
  std::map<double, std::vector<Index>> by_class;  // ordered: a fixed draw order
  for (Index i = 0; i < labels.size(); ++i) by_class[labels(i)].push_back(i);

  Shards shards(static_cast<std::size_t>(workers));
  rng::Gamma gamma(alpha, 1.0);
  std::vector<double> cumulative(static_cast<std::size_t>(workers));
  for (auto& [label, members] : by_class) {
    rng::shuffle(members.begin(), members.end(), rng);
    double total = 0;
    for (int w = 0; w < workers; ++w) total = cumulative[std::size_t(w)] = total + gamma(rng);
    if (!(total > 0)) {  // every draw underflowed (alpha ≪ 1): the class goes to one worker
      const auto chosen = int(rng::below(rng, workers));
      for (int w = 0; w < workers; ++w) cumulative[std::size_t(w)] = w >= chosen ? 1.0 : 0.0;
      total = 1.0;
    }
    // Worker w takes members [round(n_k·P_{w−1}), round(n_k·P_w)), P the cumulative shares.
    const double n_k = double(members.size());
    std::size_t begin = 0;
    for (int w = 0; w < workers; ++w) {
      std::size_t end = w + 1 == workers
                            ? members.size()
                            : std::size_t(std::llround(n_k * cumulative[std::size_t(w)] / total));
      end = std::clamp(end, begin, members.size());
      auto& shard = shards[std::size_t(w)];
      shard.insert(shard.end(), members.begin() + std::ptrdiff_t(begin),
                   members.begin() + std::ptrdiff_t(end));
      begin = end;
    }
  }
  // Every worker gets at least one sample: an empty worker takes the last row of the
  // currently largest shard (lowest id among equals).
  for (auto& shard : shards) {
    if (!shard.empty()) continue;
    auto largest = std::max_element(shards.begin(), shards.end(), [](const auto& a, const auto& b) {
      return a.size() < b.size();
    });
    shard.push_back(largest->back());
    largest->pop_back();
  }
  for (auto& shard : shards) std::sort(shard.begin(), shard.end());
  return shards;
}

Shards partition_shards(const Vector& labels, int workers, int per_worker, std::mt19937_64& rng) {
  check_split(labels.size(), workers);
  if (per_worker < 1) throw std::invalid_argument("partition: shards per_worker must be >= 1");
  const Index pieces = Index(workers) * per_worker;
  if (labels.size() < pieces)
    throw std::invalid_argument("partition: " + std::to_string(labels.size()) +
                                " training samples cannot be cut into " + std::to_string(pieces) +
                                " shards (workers x per_worker)");
  const Shards cut_shards = cut(sorted_by_label(labels), int(pieces));
  std::vector<std::size_t> deal(cut_shards.size());
  std::iota(deal.begin(), deal.end(), std::size_t(0));
  rng::shuffle(deal.begin(), deal.end(), rng);
  Shards shards(static_cast<std::size_t>(workers));
  for (std::size_t k = 0; k < deal.size(); ++k) {
    auto& shard = shards[k / std::size_t(per_worker)];
    const auto& piece = cut_shards[deal[k]];
    shard.insert(shard.end(), piece.begin(), piece.end());
  }
  return shards;
}

Shards partition_sorted(const Vector& labels, int workers) {
  check_split(labels.size(), workers);
  return cut(sorted_by_label(labels), workers);
}

}  // namespace dlsim::models
