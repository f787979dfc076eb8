#include "tools/dlsim/mpi_world.hpp"

#include <stdlib.h>  // unsetenv

#include <cstdlib>

#ifdef DLSIM_WITH_MPI
#include <mpi.h>
#endif

namespace dlsim::tool {

namespace {

constexpr const char* kLauncherVariables[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"};

bool launched_by_mpirun() {
  for (const char* var : kLauncherVariables)
    if (std::getenv(var) != nullptr) return true;
  return false;
}

}  // namespace

void MpiWorld::hide_launcher_from_children() {
  for (const char* var : kLauncherVariables) ::unsetenv(var);
}

bool MpiWorld::built_with_mpi() {
#ifdef DLSIM_WITH_MPI
  return true;
#else
  return false;
#endif
}

MpiWorld::MpiWorld() {
#ifdef DLSIM_WITH_MPI
  if (!launched_by_mpirun()) return;
  MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  active_ = true;
#endif
}

MpiWorld::~MpiWorld() {
#ifdef DLSIM_WITH_MPI
  if (active_) MPI_Finalize();
#endif
}

bool MpiWorld::all_ok(bool ok) {
#ifdef DLSIM_WITH_MPI
  if (active_) {
    int mine = ok ? 1 : 0, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all == 1;
  }
#endif
  return ok;
}

int MpiWorld::lowest_rank_with(bool flag) {
#ifdef DLSIM_WITH_MPI
  if (active_) {
    int mine = flag ? rank_ : size_, lowest = size_;
    MPI_Allreduce(&mine, &lowest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return lowest;
  }
#endif
  return flag ? 0 : 1;
}

bool MpiWorld::from_rank0(bool flag) {
#ifdef DLSIM_WITH_MPI
  if (active_) {
    int value = flag ? 1 : 0;
    MPI_Bcast(&value, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return value == 1;
  }
#endif
  return flag;
}

void MpiWorld::abort(int code) {
#ifdef DLSIM_WITH_MPI
  if (active_) MPI_Abort(MPI_COMM_WORLD, code);
#endif
  std::exit(code);
}

}  // namespace dlsim::tool
