// Optional MPI for `mpirun -np K dlsim sweep ...` (docs/design.md §2): when dlsim is
// built with MPI (CMake found it) and was started by an MPI launcher (which sets
// OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK), the sweep's points are shared among
// the K ranks; otherwise MPI is not initialized at all and there is one "rank".
// Only collectives with a fixed call order are used (agreement on errors, barrier),
// so the ranks never exchange results: they all write into one shared folder.
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

  /// Collective: true on every rank iff `ok` is true on every rank.
  bool all_ok(bool ok);
  /// Collective: the value of `flag` on rank 0, on every rank.
  bool from_rank0(bool flag);
  void barrier();
  /// Ends every rank of the job with `code` (for errors that are not agreed upon).
  [[noreturn]] void abort(int code);

 private:
  bool active_ = false;
  int rank_ = 0;
  int size_ = 1;
};

}  // namespace dlsim::tool
