// MpiRankGroup (mpi_rank_group.hpp): sizes first (one MPI_INT per rank), then the bytes
// with the v-variants of the collectives, straight into one buffer. Every gathered total
// must stay below 2 GiB (MPI counts and displacements are int).
#include "tools/dlsim/mpi_rank_group.hpp"

#include <climits>
#include <stdexcept>

#ifdef DLSIM_WITH_MPI
#include <mpi.h>
#endif

namespace dlsim::tool {

#ifdef DLSIM_WITH_MPI

namespace {

int checked_count(std::size_t n) {
  if (n > std::size_t(INT_MAX))
    throw std::runtime_error("one rank's share of an exchange exceeds 2 GiB");
  return int(n);
}

// `counts` laid end to end: the displacements MPI wants, and the buffer they index.
sim::Gathered layout(const std::vector<int>& counts, std::vector<int>& displs) {
  sim::Gathered g;
  displs.assign(counts.size(), 0);
  g.offsets.assign(counts.size() + 1, 0);
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displs[r] = checked_count(g.offsets[r]);
    g.offsets[r + 1] = g.offsets[r] + std::size_t(counts[r]);
  }
  g.bytes.resize(std::size_t(checked_count(g.offsets.back())));
  return g;
}

}  // namespace

sim::Gathered MpiRankGroup::all_gather(std::span<const std::byte> mine) {
  const int count = checked_count(mine.size());
  std::vector<int> counts(static_cast<std::size_t>(size_)), displs;
  MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  sim::Gathered all = layout(counts, displs);
  MPI_Allgatherv(mine.data(), count, MPI_BYTE, all.bytes.data(), counts.data(), displs.data(),
                 MPI_BYTE, MPI_COMM_WORLD);
  return all;
}

sim::Gathered MpiRankGroup::gather(std::span<const std::byte> mine) {
  const int count = checked_count(mine.size());
  std::vector<int> counts(rank_ == 0 ? static_cast<std::size_t>(size_) : 0), displs;
  MPI_Gather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
  sim::Gathered all = rank_ == 0 ? layout(counts, displs) : sim::Gathered{};
  MPI_Gatherv(mine.data(), count, MPI_BYTE, all.bytes.data(), counts.data(), displs.data(),
              MPI_BYTE, 0, MPI_COMM_WORLD);
  return all;
}

void MpiRankGroup::broadcast(std::vector<std::byte>& bytes, int root) {
  std::uint64_t n = bytes.size();
  MPI_Bcast(&n, 1, MPI_UINT64_T, root, MPI_COMM_WORLD);
  bytes.resize(std::size_t(n));
  MPI_Bcast(bytes.data(), checked_count(bytes.size()), MPI_BYTE, root, MPI_COMM_WORLD);
}

void MpiRankGroup::send(int to, std::span<const std::byte> bytes) {
  MPI_Send(bytes.data(), checked_count(bytes.size()), MPI_BYTE, to, 0, MPI_COMM_WORLD);
}

void MpiRankGroup::receive(int from, std::span<std::byte> bytes) {
  MPI_Recv(bytes.data(), checked_count(bytes.size()), MPI_BYTE, from, 0, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
}

#else

sim::Gathered MpiRankGroup::all_gather(std::span<const std::byte>) {
  throw std::logic_error("dlsim was built without MPI");
}
sim::Gathered MpiRankGroup::gather(std::span<const std::byte>) {
  throw std::logic_error("dlsim was built without MPI");
}
void MpiRankGroup::broadcast(std::vector<std::byte>&, int) {
  throw std::logic_error("dlsim was built without MPI");
}
void MpiRankGroup::send(int, std::span<const std::byte>) {
  throw std::logic_error("dlsim was built without MPI");
}
void MpiRankGroup::receive(int, std::span<std::byte>) {
  throw std::logic_error("dlsim was built without MPI");
}

#endif

}  // namespace dlsim::tool
