#include "tools/dlsim/mpi_point_counter.hpp"

#include <algorithm>
#include <stdexcept>

#ifdef DLSIM_WITH_MPI
#include <mpi.h>
#endif

namespace dlsim::tool {

#ifdef DLSIM_WITH_MPI

struct MpiPointCounter::Handles {
  MPI_Win window = MPI_WIN_NULL;
  MPI_Request finished = MPI_REQUEST_NULL;
  bool finish_said = false;
};

MpiPointCounter::MpiPointCounter(const MpiWorld& world, std::size_t points)
    : points_(points), mpi_(std::make_unique<Handles>()) {
  if (!world.active()) throw std::logic_error("MpiPointCounter needs an active MpiWorld");
  const MPI_Aint bytes = world.rank() == 0 ? MPI_Aint(sizeof(std::int64_t)) : 0;
  MPI_Win_allocate(bytes, int(sizeof(std::int64_t)), MPI_INFO_NULL, MPI_COMM_WORLD, &counter_,
                   &mpi_->window);
  if (world.rank() == 0) *counter_ = 0;
  MPI_Barrier(MPI_COMM_WORLD);  // the counter is 0 before anyone adds to it
  MPI_Win_lock_all(0, mpi_->window);
}

MpiPointCounter::~MpiPointCounter() {
  if (mpi_->finished != MPI_REQUEST_NULL) MPI_Wait(&mpi_->finished, MPI_STATUS_IGNORE);
  MPI_Win_unlock_all(mpi_->window);
  MPI_Win_free(&mpi_->window);
}

void MpiPointCounter::wait_for_lead() {
  MPI_Barrier(MPI_COMM_WORLD);
}

std::int64_t MpiPointCounter::fetch_and_add(std::int64_t add) {
  std::int64_t before = 0;
  MPI_Fetch_and_op(&add, &before, MPI_INT64_T, 0, 0, add == 0 ? MPI_NO_OP : MPI_SUM, mpi_->window);
  MPI_Win_flush(0, mpi_->window);
  return before;
}

bool MpiPointCounter::all_finished() {
  if (!mpi_->finish_said) {
    MPI_Ibarrier(MPI_COMM_WORLD, &mpi_->finished);
    mpi_->finish_said = true;
  }
  if (mpi_->finished == MPI_REQUEST_NULL) return true;
  int done = 0;
  MPI_Test(&mpi_->finished, &done, MPI_STATUS_IGNORE);
  return done != 0;
}

void MpiPointCounter::serve() {
  // Any MPI call drives Open MPI's progress engine, which applies the other ranks'
  // fetch-and-adds when the transport cannot do them without this rank.
  int flag = 0;
  MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE);
}

#else  // built without MPI: there is never an active MpiWorld to share points with

struct MpiPointCounter::Handles {};

MpiPointCounter::MpiPointCounter(const MpiWorld&, std::size_t points) : points_(points) {
  throw std::logic_error("MpiPointCounter needs an MPI build");
}
MpiPointCounter::~MpiPointCounter() = default;
void MpiPointCounter::wait_for_lead() {}
std::int64_t MpiPointCounter::fetch_and_add(std::int64_t) {
  return 0;
}
bool MpiPointCounter::all_finished() {
  return true;
}
void MpiPointCounter::serve() {}

#endif

std::optional<std::size_t> MpiPointCounter::take() {
  const std::int64_t point = fetch_and_add(1);
  if (point < 0 || std::size_t(point) >= points_) return std::nullopt;
  return std::size_t(point);
}

std::size_t MpiPointCounter::taken() {
  const std::int64_t next = fetch_and_add(0);
  return next < 0 ? 0 : std::min(std::size_t(next), points_);
}

}  // namespace dlsim::tool
