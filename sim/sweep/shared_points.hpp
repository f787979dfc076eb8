// A sweep's points shared among several processes that take them one at a time, in
// sweep order, as they have room (MPI ranks: tools/dlsim/mpi_point_counter.hpp keeps the
// counter on rank 0). Unlike the fixed stride of `--shard` (partition.hpp), one heavy
// point does not leave the other processes idle: whoever is free takes the next point.
// Every point is handed out exactly once; points [0, taken()) have been.
#pragma once

#include <cstddef>
#include <optional>

namespace dlsim::sim {

class SharedPoints {
 public:
  virtual ~SharedPoints() = default;

  /// Collective: returns on every process once the lead (the one that prepares the run
  /// folders and keeps runs.csv) has prepared them; no point is taken before.
  virtual void wait_for_lead() = 0;
  /// The next point for this process, or nothing when every point has been handed out.
  virtual std::optional<std::size_t> take() = 0;
  /// How many points have been handed out so far, to any process.
  virtual std::size_t taken() = 0;
  /// Says that this process has run all it took (the first call), and tells, without
  /// blocking, whether every process has; called again until it is true.
  virtual bool all_finished() = 0;
  /// Lets the counter serve the other processes (some MPI transports move one-sided
  /// operations only while the target process calls MPI); called a few times a second.
  virtual void serve() {}
};

}  // namespace dlsim::sim
