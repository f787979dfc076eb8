// iid partitions and the batch sampler.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <random>
#include <set>
#include <vector>

#include "models/data/partition.hpp"

using namespace dlsim::models;

TEST_CASE("partition_iid: shard sizes, first N mod n shards one larger") {
  std::mt19937_64 rng(1);
  const Shards shards = partition_iid(10, 3, rng);
  REQUIRE(shards.size() == 3);
  CHECK(shards[0].size() == 4);
  CHECK(shards[1].size() == 3);
  CHECK(shards[2].size() == 3);

  const Shards even = partition_iid(12, 4, rng);
  for (const auto& s : even) CHECK(s.size() == 3);

  const Shards one_each = partition_iid(5, 5, rng);
  for (const auto& s : one_each) CHECK(s.size() == 1);
}

TEST_CASE("partition_iid: shards are disjoint and cover every sample") {
  std::mt19937_64 rng(2);
  const Shards shards = partition_iid(103, 7, rng);
  std::vector<Index> all;
  for (const auto& s : shards) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  std::vector<Index> expected(103);
  std::iota(expected.begin(), expected.end(), Index(0));
  CHECK(all == expected);
  // Shuffled, not 0..14 in order in the first shard.
  std::vector<Index> first(shards[0].begin(), shards[0].end());
  CHECK_FALSE(std::is_sorted(first.begin(), first.end()));
}

TEST_CASE("partition_iid: deterministic per seed") {
  std::mt19937_64 a(3), b(3), c(4);
  const Shards x = partition_iid(50, 4, a);
  CHECK(x == partition_iid(50, 4, b));
  CHECK(x != partition_iid(50, 4, c));
}

TEST_CASE("partition_iid: fewer samples than workers is an error") {
  std::mt19937_64 rng(5);
  CHECK_THROWS_AS(partition_iid(3, 4, rng), std::invalid_argument);
  CHECK_THROWS_AS(partition_iid(3, 0, rng), std::invalid_argument);
}

namespace {

std::vector<Index> shard_of(Index from, Index size) {
  std::vector<Index> shard(static_cast<std::size_t>(size));
  std::iota(shard.begin(), shard.end(), from);
  return shard;
}

std::vector<Index> sorted(std::span<const Index> rows) {
  std::vector<Index> v(rows.begin(), rows.end());
  std::sort(v.begin(), v.end());
  return v;
}

}  // namespace

TEST_CASE("BatchSampler: each pass covers the shard exactly once, in a new order") {
  const std::vector<Index> shard = shard_of(100, 12);
  BatchSampler sampler(shard, 4, std::mt19937_64(6));
  CHECK(sampler.batch_size() == 4);
  std::vector<std::vector<Index>> passes;
  for (int pass = 0; pass < 5; ++pass) {
    std::vector<Index> order;
    for (int b = 0; b < 3; ++b) {
      const auto batch = sampler.next();
      REQUIRE(batch.size() == 4);
      order.insert(order.end(), batch.begin(), batch.end());
    }
    CHECK(sorted(order) == shard);
    passes.push_back(order);
  }
  for (std::size_t p = 1; p < passes.size(); ++p) CHECK(passes[p] != passes[p - 1]);
}

TEST_CASE("BatchSampler: a batch never spans two passes") {
  // 10 rows, batch 4: two batches per pass, the remaining 2 rows are skipped.
  const std::vector<Index> shard = shard_of(0, 10);
  BatchSampler sampler(shard, 4, std::mt19937_64(7));
  for (int pass = 0; pass < 4; ++pass) {
    std::set<Index> seen;
    for (int b = 0; b < 2; ++b) {
      for (const Index r : sampler.next()) CHECK(seen.insert(r).second);
    }
    CHECK(seen.size() == 8);
  }
}

TEST_CASE("BatchSampler: batch equal to or larger than the shard gives the whole shard") {
  const std::vector<Index> shard = shard_of(20, 9);
  for (const Index batch : {Index(9), Index(50)}) {
    BatchSampler sampler(shard, batch, std::mt19937_64(8));
    CHECK(sampler.batch_size() == 9);
    std::vector<Index> previous;
    bool reordered = false;
    for (int i = 0; i < 6; ++i) {
      const auto b = sampler.next();
      CHECK(sorted(b) == shard);
      std::vector<Index> now(b.begin(), b.end());
      if (!previous.empty() && now != previous) reordered = true;
      previous = now;
    }
    CHECK(reordered);  // a fresh shuffle every pass
  }
}

TEST_CASE("BatchSampler: deterministic given the rng") {
  const std::vector<Index> shard = shard_of(0, 30);
  BatchSampler a(shard, 7, std::mt19937_64(9));
  BatchSampler b(shard, 7, std::mt19937_64(9));
  BatchSampler c(shard, 7, std::mt19937_64(10));
  bool differs = false;
  for (int i = 0; i < 20; ++i) {
    const auto x = a.next();
    const auto y = b.next();
    const auto z = c.next();
    CHECK(std::equal(x.begin(), x.end(), y.begin(), y.end()));
    if (!std::equal(x.begin(), x.end(), z.begin(), z.end())) differs = true;
  }
  CHECK(differs);
}

TEST_CASE("BatchSampler: invalid arguments") {
  CHECK_THROWS_AS(BatchSampler({}, 4, std::mt19937_64(1)), std::invalid_argument);
  CHECK_THROWS_AS(BatchSampler(shard_of(0, 3), 0, std::mt19937_64(1)), std::invalid_argument);
}

// ---------------------------------------------------------------- non-iid partitions
namespace {

// 10 classes × 500 samples, labels in a shuffled order.
Vector balanced_labels(int classes, int per_class, std::uint64_t seed) {
  std::vector<double> labels;
  for (int c = 0; c < classes; ++c)
    for (int k = 0; k < per_class; ++k) labels.push_back(c);
  std::mt19937_64 rng(seed);
  std::shuffle(labels.begin(), labels.end(), rng);
  return Eigen::Map<Vector>(labels.data(), Index(labels.size()));
}

void check_disjoint_cover(const Shards& shards, Index samples) {
  std::vector<int> seen(static_cast<std::size_t>(samples), 0);
  for (const auto& s : shards)
    for (Index r : s) seen[std::size_t(r)]++;
  CHECK(std::all_of(seen.begin(), seen.end(), [](int k) { return k == 1; }));
}

// Mean over workers of the total-variation distance between the worker's class
// histogram and the global one: 0 for perfectly iid shards, near 1 − 1/C for one class each.
double mean_tv_distance(const Shards& shards, const Vector& labels, int classes) {
  Eigen::ArrayXd global = Eigen::ArrayXd::Zero(classes);
  for (Index i = 0; i < labels.size(); ++i) global(Index(labels(i))) += 1;
  global /= double(labels.size());
  double total = 0;
  for (const auto& s : shards) {
    Eigen::ArrayXd local = Eigen::ArrayXd::Zero(classes);
    for (Index r : s) local(Index(labels(r))) += 1;
    local /= double(s.size());
    total += 0.5 * (local - global).abs().sum();
  }
  return total / double(shards.size());
}

}  // namespace

TEST_CASE("dirichlet: small alpha is skewed, large alpha near uniform") {
  const Vector labels = balanced_labels(10, 500, 1);
  std::mt19937_64 rng(2);
  const Shards skewed = partition_dirichlet(labels, 10, 0.1, rng);
  const Shards uniform = partition_dirichlet(labels, 10, 1000.0, rng);
  check_disjoint_cover(skewed, labels.size());
  check_disjoint_cover(uniform, labels.size());
  const double tv_skewed = mean_tv_distance(skewed, labels, 10);
  const double tv_uniform = mean_tv_distance(uniform, labels, 10);
  INFO("TV skewed " << tv_skewed << ", uniform " << tv_uniform);
  // Thresholds: Dir(0.1) puts most of a class on one or two workers, TV ≈ 0.7;
  // Dir(1000) gives shares 0.1 ± 0.003, TV from sampling noise alone ≈ 0.03.
  CHECK(tv_skewed > 0.5);
  CHECK(tv_uniform < 0.06);
  // Near-uniform shard sizes under large alpha: 500 ± 10%.
  for (const auto& s : uniform) CHECK(std::abs(double(s.size()) - 500.0) < 50.0);
}

TEST_CASE("dirichlet: every worker gets at least one sample, even with tiny alpha") {
  const Vector labels = balanced_labels(2, 20, 3);
  for (std::uint64_t seed = 0; seed < 20; ++seed) {
    std::mt19937_64 rng(seed);
    const Shards shards = partition_dirichlet(labels, 16, 0.01, rng);
    check_disjoint_cover(shards, labels.size());
    for (const auto& s : shards) CHECK(!s.empty());
  }
  std::mt19937_64 a(5), b(5);
  CHECK(partition_dirichlet(labels, 4, 0.5, a) == partition_dirichlet(labels, 4, 0.5, b));
}

// The reference draw (AdaG_SGD partition_data.py) keeps shards at exactly ⌊N/n⌋ rows while
// keeping the label skew of Dir(alpha); 16 workers exercise its groups of 10 workers.
TEST_CASE("balanced dirichlet: equal shards of floor(N/n), skewed at small alpha") {
  const Vector labels = balanced_labels(10, 601, 7);  // 6010 rows: 6010 mod 16 = 10 left out
  for (double alpha : {0.1, 1000.0}) {
    std::mt19937_64 rng(8);
    const Shards shards = partition_balanced_dirichlet(labels, 16, alpha, rng);
    REQUIRE(shards.size() == 16);
    std::set<Index> seen;
    for (const auto& s : shards) {
      CHECK(s.size() == 6010 / 16);
      seen.insert(s.begin(), s.end());
    }
    CHECK(seen.size() == 16 * (6010 / 16));  // disjoint
    const double tv = mean_tv_distance(shards, labels, 10);
    INFO("alpha " << alpha << ": TV " << tv);
    // Dir(0.1): each worker's draw holds a few classes, TV ≈ 0.6-0.7 (the cut into equal
    // shards moves only the rows beyond a draw's fair size); Dir(1000): sampling noise.
    if (alpha < 1) CHECK(tv > 0.45);
    if (alpha > 1) CHECK(tv < 0.08);
  }
  // The unbalanced draw at the same alpha gives very unequal shards; the balanced never.
  std::mt19937_64 rng(8);
  const Shards unbalanced = partition_dirichlet(labels, 16, 0.1, rng);
  const auto [small, large] =
      std::minmax_element(unbalanced.begin(), unbalanced.end(),
                          [](const auto& a, const auto& b) { return a.size() < b.size(); });
  CHECK(large->size() > 2 * small->size());
  // Same seed, same shards.
  std::mt19937_64 a(3), b(3);
  CHECK(partition_balanced_dirichlet(labels, 12, 0.5, a) ==
        partition_balanced_dirichlet(labels, 12, 0.5, b));
}

TEST_CASE("balanced dirichlet: gives up with a message when no draw can be balanced") {
  // One class: one Dir(1e-9) draw per try puts all rows on one worker (a try succeeds with
  // probability about 1e-9), so the other never reaches half its fair size (2 of 10 rows).
  const Vector one_class = Vector::Zero(10);
  std::mt19937_64 rng(1);
  CHECK_THROWS_WITH(
      partition_balanced_dirichlet(one_class, 2, 1e-9, rng),
      Catch::Contains("balanced dirichlet found no draw") && Catch::Contains("raise alpha"));
  CHECK_THROWS_WITH(partition_balanced_dirichlet(one_class, 11, 1.0, rng),
                    Catch::Contains("cannot be split among 11 workers"));
}

TEST_CASE("shards: each worker holds per_worker label-sorted pieces") {
  const Vector labels = balanced_labels(10, 100, 4);  // 1000 samples
  std::mt19937_64 rng(6);
  const Shards shards = partition_shards(labels, 10, 2, rng);  // 20 pieces of 50
  check_disjoint_cover(shards, labels.size());
  for (const auto& s : shards) {
    CHECK(s.size() == 100);
    std::set<double> classes;
    for (Index r : s) classes.insert(labels(r));
    CHECK(classes.size() <= 2);  // a piece of 50 never spans two classes of 100
  }
  CHECK(mean_tv_distance(shards, labels, 10) > 0.75);
  CHECK_THROWS(partition_shards(labels, 10, 101, rng));
}

TEST_CASE("sorted: stable sort by label, contiguous iid-sized shards, no randomness") {
  Vector labels(7);
  labels << 2, 0, 1, 0, 2, 1, 0;
  const Shards shards = partition_sorted(labels, 3);
  REQUIRE(shards.size() == 3);
  CHECK(shards[0] == std::vector<Index>{1, 3, 6});
  CHECK(shards[1] == std::vector<Index>{2, 5});
  CHECK(shards[2] == std::vector<Index>{0, 4});
}

TEST_CASE("BatchSampler: upcoming() is the next batch, or nothing before a reshuffle") {
  // 10 rows, batch 4: the third call of a pass reshuffles, which upcoming() cannot foresee.
  const std::vector<Index> shard = shard_of(0, 10);
  for (const Index batch : {Index(1), Index(3), Index(4), Index(10)}) {
    INFO("batch " << batch);
    BatchSampler sampler(shard, batch, std::mt19937_64(11));
    const Index per_pass = 10 / batch;
    for (int i = 0; i < 25; ++i) {
      const std::vector<Index> ahead(sampler.upcoming().begin(), sampler.upcoming().end());
      const auto b = sampler.next();
      const bool reshuffles = i % per_pass == 0 && i > 0;  // the pass's first call after one
      if (reshuffles) {
        CHECK(ahead.empty());
      } else {
        CHECK(ahead == std::vector<Index>(b.begin(), b.end()));
      }
    }
  }
}
