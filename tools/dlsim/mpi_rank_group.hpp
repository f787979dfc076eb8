// sim::RankGroup over MPI_COMM_WORLD, for `mpirun -np K dlsim run` (one simulation spread
// over the ranks; sim/engine/rank_group.hpp). Needs an active MpiWorld.
#pragma once

#include "sim/engine/rank_group.hpp"
#include "tools/dlsim/mpi_world.hpp"

namespace dlsim::tool {

class MpiRankGroup final : public sim::RankGroup {
 public:
  explicit MpiRankGroup(const MpiWorld& world) : rank_(world.rank()), size_(world.size()) {}

  int rank() const override { return rank_; }
  int size() const override { return size_; }
  sim::Gathered all_gather(std::span<const std::byte> mine) override;
  sim::Gathered gather(std::span<const std::byte> mine) override;
  void broadcast(std::vector<std::byte>& bytes, int root) override;
  void send(int to, std::span<const std::byte> bytes) override;
  void receive(int from, std::span<std::byte> bytes) override;

 private:
  int rank_;
  int size_;
};

}  // namespace dlsim::tool
