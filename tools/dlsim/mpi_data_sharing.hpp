// sim::DataSharing over MPI: the ranks of one machine (MPI_Comm_split_type with
// MPI_COMM_TYPE_SHARED) keep one copy of the data set in POSIX shared memory. The
// machine's lowest rank loads and prepares the data, creates a shared-memory object
// (shm_open in /dev/shm, its pages reserved with posix_fallocate so that a full /dev/shm
// is an error here and not a SIGBUS later), copies the rows in at 64-byte aligned offsets
// while it frees its own copy, and makes its mapping read-only; the others map the object
// read-only, after which it is unlinked (nothing is left in /dev/shm once every rank has
// it). Every rank's features are then read-only views of the same pages
// (FeatureMatrix::view_of); a view's mapping goes away with its last copy. A rank alone on
// its machine (one rank per node) keeps the data it loaded as it is.
#pragma once

#include <memory>

#include "sim/run/data_sharing.hpp"
#include "tools/dlsim/mpi_world.hpp"

namespace dlsim::tool {

class MpiDataSharing final : public sim::DataSharing {
 public:
  /// Collective over MPI_COMM_WORLD; needs an active MpiWorld.
  explicit MpiDataSharing(const MpiWorld& world);
  ~MpiDataSharing() override;
  MpiDataSharing(const MpiDataSharing&) = delete;
  MpiDataSharing& operator=(const MpiDataSharing&) = delete;

  bool loads() const override { return machine_rank_ == 0; }
  std::optional<models::DataSplit> share(std::optional<models::DataSplit> loaded) override;

 private:
  int machine_rank_ = 0;
  int machine_size_ = 1;
  struct Handles;  // the machine's communicator (mpi.h stays in the .cpp)
  std::unique_ptr<Handles> mpi_;
};

}  // namespace dlsim::tool
