// One copy of a run's data set per machine when several processes run one simulation
// (`mpirun -np K dlsim run`, docs/design.md §6 "Across ranks"): one process per machine
// loads and prepares the data, the others map the same rows from shared memory. prepare()
// uses this interface; tools/dlsim implements it with POSIX shared memory among the ranks
// MPI groups by machine (tools/dlsim/mpi_data_sharing.hpp).
#pragma once

#include <optional>

#include "models/data/dataset.hpp"

namespace dlsim::sim {

class DataSharing {
 public:
  virtual ~DataSharing() = default;
  /// True on the one process of its machine that loads the data.
  virtual bool loads() const = 0;
  /// Collective among the processes of one machine, in the same order on each. The
  /// loading process passes its prepared data (nullopt when preparing it failed) and
  /// gives it up; every process gets back the same data whose features are read-only
  /// views of one shared copy (labels are copied), or nullopt when the loading process
  /// had none. Throws InputError on every process of the machine when the shared memory
  /// cannot be had.
  virtual std::optional<models::DataSplit> share(std::optional<models::DataSplit> loaded) = 0;
};

}  // namespace dlsim::sim
