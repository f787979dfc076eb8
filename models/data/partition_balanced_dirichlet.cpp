// dirichlet with balanced: true: equal-size non-iid shards drawn the way the AdaGossip and
// QGM reference code draws them (Aketi et al. 2024, github aparna-aketi/AdaG_SGD,
// partition_data.py, build_non_iid_by_dirichlet; after Lin et al. 2021):
//   1. shuffle the N training rows; cut them into groups of (up to) 10 workers: group g
//      takes ⌊10·N/n⌋ rows, the last group the rest;
//   2. in each group of m workers with S rows, per class k (ascending label): p ~ Dir(α·1_m);
//      workers already holding ≥ S/m rows get share 0 (renormalize); the class's rows in
//      the group are cut at ⌊n_k·cumsum(p)⌋. Redraw the whole group until its smallest
//      worker holds ≥ ⌊S/(2m)⌋ rows;
//   3. concatenate the workers' rows (worker 0 first) and cut the sequence into n shards of
//      exactly ⌊N/n⌋ rows; the last N mod n rows are left out.
// The draws use dlsim's own generators (Gamma via rng/distributions.hpp), so the shards
// follow the reference's rule, not numpy's random stream.
#include <algorithm>
#include <map>
#include <numeric>
#include <stdexcept>
#include <string>

#include "models/data/partition.hpp"
#include "rng/distributions.hpp"
#include "rng/shuffle.hpp"

namespace dlsim::models {

namespace {

constexpr int kGroupWorkers = 10;   // the reference's n_auxi_workers
constexpr int kMaxRedraws = 10000;  // the reference loops forever; we give up with an error

// Step 2 for one group: `rows` (shuffled) over `m` workers.
Shards draw_group(const std::vector<Index>& rows, const Vector& labels, int m, double alpha,
                  std::mt19937_64& rng) {
  std::map<double, std::vector<Index>> by_class;  // ordered by label: a fixed draw order
  for (Index r : rows) by_class[labels(r)].push_back(r);
  const double fair = double(rows.size()) / m;
  const auto needed = std::size_t(0.5 * double(rows.size()) / m);
  rng::Gamma gamma(alpha, 1.0);
  std::vector<double> share(static_cast<std::size_t>(m));
  for (int attempt = 0; attempt < kMaxRedraws; ++attempt) {
    Shards batch(static_cast<std::size_t>(m));
    for (const auto& [label, members] : by_class) {
      double total = 0;
      for (int w = 0; w < m; ++w) {
        const double p = gamma(rng);
        share[std::size_t(w)] = double(batch[std::size_t(w)].size()) < fair ? p : 0.0;
        total += share[std::size_t(w)];
      }
      if (!(total > 0)) continue;  // every open share underflowed: redraw the group below
      double cumulative = 0;
      std::size_t begin = 0;
      for (int w = 0; w < m; ++w) {
        cumulative += share[std::size_t(w)];
        const std::size_t cut = w + 1 == m
                                    ? members.size()
                                    : std::size_t(double(members.size()) * (cumulative / total));
        const std::size_t end = std::clamp(cut, begin, members.size());
        auto& shard = batch[std::size_t(w)];
        shard.insert(shard.end(), members.begin() + std::ptrdiff_t(begin),
                     members.begin() + std::ptrdiff_t(end));
        begin = end;
      }
    }
    std::size_t smallest = rows.size();
    std::size_t placed = 0;
    for (const auto& s : batch) {
      smallest = std::min(smallest, s.size());
      placed += s.size();
    }
    if (placed == rows.size() && smallest >= needed) return batch;
  }
  throw std::invalid_argument("partition: balanced dirichlet found no draw giving every worker " +
                              std::to_string(needed) + " samples in " +
                              std::to_string(kMaxRedraws) + " tries; raise alpha");
}

}  // namespace

Shards partition_balanced_dirichlet(const Vector& labels, int workers, double alpha,
                                    std::mt19937_64& rng) {
  const Index n_rows = labels.size();
  check_split(n_rows, workers);
  if (!(alpha > 0)) throw std::invalid_argument("partition: dirichlet alpha must be > 0");
  std::vector<Index> order(static_cast<std::size_t>(n_rows));
  std::iota(order.begin(), order.end(), Index(0));
  rng::shuffle(order.begin(), order.end(), rng);

  // Step 1: groups of kGroupWorkers workers, each with ⌊10·N/n⌋ rows, the last the rest.
  std::vector<Index> sequence;
  sequence.reserve(order.size());
  const Index group_rows = std::min<Index>(n_rows, Index(kGroupWorkers) * n_rows / workers);
  Index from = 0;
  for (int first = 0; first < workers; first += kGroupWorkers) {
    const int m = std::min(kGroupWorkers, workers - first);
    const Index to = first + m >= workers ? n_rows : from + group_rows;
    const std::vector<Index> rows(order.begin() + from, order.begin() + to);
    for (const auto& shard : draw_group(rows, labels, m, alpha, rng))
      sequence.insert(sequence.end(), shard.begin(), shard.end());
    from = to;
  }
  // Step 3: n equal shards of ⌊N/n⌋ consecutive rows of the concatenation.
  const Index size = n_rows / workers;
  Shards shards(static_cast<std::size_t>(workers));
  for (int w = 0; w < workers; ++w) {
    auto begin = sequence.begin() + std::ptrdiff_t(Index(w) * size);
    shards[std::size_t(w)].assign(begin, begin + std::ptrdiff_t(size));
    std::sort(shards[std::size_t(w)].begin(), shards[std::size_t(w)].end());
  }
  return shards;
}

}  // namespace dlsim::models
