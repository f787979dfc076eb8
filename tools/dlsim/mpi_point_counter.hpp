// sim::SharedPoints over MPI for `mpirun -np K dlsim sweep`: one 64-bit counter in an
// MPI window on rank 0; a rank with a free slot takes the next point with
// MPI_Fetch_and_op(+1) (passive target, one lock_all epoch for the whole sweep), so
// points go out in sweep order to whichever rank is free. The end is an MPI_Ibarrier
// that the ranks test while they sleep (no rank spins on a core while others run points).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/sweep/shared_points.hpp"
#include "tools/dlsim/mpi_world.hpp"

namespace dlsim::tool {

class MpiPointCounter final : public sim::SharedPoints {
 public:
  /// Collective; needs an active MpiWorld (a build with MPI, started by mpirun).
  MpiPointCounter(const MpiWorld& world, std::size_t points);
  ~MpiPointCounter() override;  // collective
  MpiPointCounter(const MpiPointCounter&) = delete;
  MpiPointCounter& operator=(const MpiPointCounter&) = delete;

  void wait_for_lead() override;
  std::optional<std::size_t> take() override;
  std::size_t taken() override;
  bool all_finished() override;
  void serve() override;

 private:
  std::int64_t fetch_and_add(std::int64_t add);

  std::size_t points_;
  std::int64_t* counter_ = nullptr;  // on rank 0: the next point to hand out
  struct Handles;  // the MPI window and the end's request (mpi.h stays in the .cpp)
  std::unique_ptr<Handles> mpi_;
};

}  // namespace dlsim::tool
