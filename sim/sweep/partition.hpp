// Sharing a sweep's points among K workers (batch-scheduler shards with
// `--shard i/K`, or MPI ranks): worker i takes points i, i+K, i+2K, ... in sweep
// order. The split is deterministic, disjoint, covers every point, and keeps the
// workers' loads within one point of each other.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace dlsim::sim {

struct Partition {
  int index = 0;  // 0-based
  int count = 1;

  bool owns(std::size_t point) const { return int(point % std::size_t(count)) == index; }
  bool whole() const { return count == 1; }
  /// "0-of-1", the suffix of shard index files (runs.shard-0-of-4.csv).
  std::string tag() const { return std::to_string(index) + "-of-" + std::to_string(count); }
};

/// Parses "i/K" with 0 <= i < K; errors name `--shard`.
Partition parse_shard(std::string_view text);

/// The indexes of the points that `part` owns among `total`, ascending.
std::vector<std::size_t> owned_points(const Partition& part, std::size_t total);

}  // namespace dlsim::sim
