// One simulation spread over several processes ("ranks", e.g. `mpirun -np K dlsim run`;
// docs/design.md §6 "Across ranks"). Every rank runs the same deterministic engine and
// network; the workers' math is partitioned (WorkerPlacement), and the ranks meet only
// at points every rank reaches in the same order (the end of a compute phase, a metrics
// row, the end of the run). This interface is what the simulation needs from the
// transport; tools/dlsim implements it with MPI. Every call is collective: all ranks
// make it, in the same order.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace dlsim::sim {

/// What a gather brings: every rank's bytes laid end to end in one buffer.
struct Gathered {
  std::vector<std::byte> bytes;
  std::vector<std::size_t> offsets;  // rank r's bytes: [offsets[r], offsets[r + 1])

  std::span<const std::byte> of(int rank) const {
    return std::span<const std::byte>(bytes).subspan(
        offsets[std::size_t(rank)], offsets[std::size_t(rank) + 1] - offsets[std::size_t(rank)]);
  }
};

class RankGroup {
 public:
  virtual ~RankGroup() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  /// Every rank's bytes, on every rank (the caller's own included).
  virtual Gathered all_gather(std::span<const std::byte> mine) = 0;
  /// Every rank's bytes on rank 0; nothing (no offsets) on the other ranks.
  virtual Gathered gather(std::span<const std::byte> mine) = 0;
  /// Rank `root`'s bytes, on every rank (`bytes` is read on `root`, replaced elsewhere).
  virtual void broadcast(std::vector<std::byte>& bytes, int root) = 0;
  /// Point to point, not collective: `bytes` to rank `to`, which receives them with
  /// receive() into a buffer of exactly that size. Messages between two ranks arrive in
  /// the order they were sent.
  virtual void send(int to, std::span<const std::byte> bytes) = 0;
  virtual void receive(int from, std::span<std::byte> bytes) = 0;
};

/// Which rank runs the math of which worker: contiguous blocks, worker i on rank ⌊i·K/n⌋,
/// so rank r holds workers ⌈r·n/K⌉ to ⌈(r+1)·n/K⌉ − 1 (block sizes differ by at most
/// one). Nodes past the workers (a parameter server) belong to rank 0.
class WorkerPlacement {
 public:
  WorkerPlacement(std::int64_t workers, int ranks, int rank)
      : workers_(workers), ranks_(ranks), rank_(rank) {}
  int owner(std::int64_t node) const {
    if (node >= workers_) return 0;
    return int(node * ranks_ / workers_);
  }
  bool local(std::int64_t node) const { return owner(node) == rank_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }

 private:
  std::int64_t workers_;
  int ranks_;
  int rank_;
};

}  // namespace dlsim::sim
