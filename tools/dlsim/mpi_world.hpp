// Optional MPI for `mpirun -np K dlsim run ...` (one simulation across the ranks,
// mpi_rank_group.hpp) and `mpirun -np K dlsim sweep ...` (docs/design.md §2): when dlsim is
// built with MPI (CMake found it) and was started by an MPI launcher (which sets
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), the sweep's points are shared among
// the K ranks; otherwise MPI is not initialized at all and there is one "rank".
// Only collectives with a fixed call order are used. A sweep's ranks never exchange
// results (they all write into one shared folder); a run's ranks exchange the math's
// results through MpiRankGroup and only rank 0 writes.
#pragma once

namespace dlsim::tool {

class MpiWorld {
 public:
  MpiWorld();  // initializes MPI when launched by mpirun and built with MPI
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  static bool built_with_mpi();
  bool active() const { return active_; }
  int rank() const { return rank_; }
  int size() const { return size_; }

  /// Makes the processes this one starts from now on plain processes, not MPI ranks: a
  /// sweep's point runs (`dlsim run`) would otherwise find the launcher's variables and
  /// join a world that is not theirs. Call after the constructor.
  static void hide_launcher_from_children();
  /// Collective: true on every rank iff `ok` is true on every rank.
  bool all_ok(bool ok);
  /// Collective: the lowest rank whose `flag` is true (size() when none).
  int lowest_rank_with(bool flag);
  /// Collective: the value of `flag` on rank 0, on every rank.
  bool from_rank0(bool flag);
  /// Ends every rank of the job with `code` (for errors that are not agreed upon).
  [[noreturn]] void abort(int code);

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace dlsim::tool
