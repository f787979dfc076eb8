#include "tools/dlsim/mpi_data_sharing.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <fmt/format.h>

#include "sim/run/memory_estimate.hpp"
#include "sim/scenario/input_error.hpp"

#ifdef DLSIM_WITH_MPI
#include <mpi.h>
#endif

namespace dlsim::tool {

#ifdef DLSIM_WITH_MPI

namespace {

constexpr std::int64_t kAlign = 64;  // ≥ EIGEN_MAX_ALIGN_BYTES: views read like owned matrices

std::int64_t aligned(std::int64_t offset) {
  return (offset + kAlign - 1) / kAlign * kAlign;
}

// Where one data set of the split lies in the shared object.
struct SetShape {
  std::int64_t present = 0, rows = 0, cols = 0, classes = 0;
  std::int64_t value_bytes = 8;  // 4: float32 storage (data.storage)
  std::int64_t features_at = 0, labels_at = 0;
};

// What the loading rank tells the others: train, test, eval, and the object's name.
struct Layout {
  std::array<SetShape, 3> sets;
  std::int64_t has_data = 0;
  std::int64_t bytes = 0;
  std::array<char, 64> name{};      // empty: the loading rank could not create it
  std::array<char, 192> problem{};  // why not
};

std::array<models::Dataset*, 3> sets_of(models::DataSplit& split) {
  return {&split.train, split.test ? &*split.test : nullptr, split.eval ? &*split.eval : nullptr};
}

Layout layout_of(models::DataSplit* split) {
  Layout l;
  if (!split) return l;
  l.has_data = 1;
  std::int64_t at = 0;
  const auto sets = sets_of(*split);
  for (std::size_t i = 0; i < sets.size(); ++i) {
    if (!sets[i]) continue;
    SetShape& s = l.sets[i];
    s.present = 1;
    s.rows = sets[i]->features.rows();
    s.cols = sets[i]->features.cols();
    s.classes = sets[i]->classes;
    s.value_bytes = sets[i]->features.value_bytes();
    s.features_at = aligned(at);
    at = s.features_at + s.value_bytes * s.rows * s.cols;
    s.labels_at = aligned(at);
    at = s.labels_at + 8 * s.rows;
  }
  l.bytes = std::max<std::int64_t>(aligned(at), kAlign);  // mmap takes no empty mapping
  return l;
}

// A mapping of the shared object; unmapped with the last view of it (no collective).
struct Mapping {
  void* at = MAP_FAILED;
  std::size_t bytes = 0;
  ~Mapping() {
    if (at != MAP_FAILED) munmap(at, bytes);
  }
};

template <std::size_t N>
void copy_text(std::array<char, N>& to, const std::string& text) {
  std::snprintf(to.data(), N, "%s", text.c_str());
}

// On the loading rank: creates the object `name`, reserves its pages, maps it writable.
// Returns the problem, or "" when it worked.
std::string create(const char* name, Mapping& m) {
  const int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
  if (fd < 0) return fmt::format("shm_open {}: {}", name, std::strerror(errno));
  std::string problem;
  if (ftruncate(fd, off_t(m.bytes)) != 0) {
    problem = fmt::format("ftruncate: {}", std::strerror(errno));
  } else if (const int e = posix_fallocate(fd, 0, off_t(m.bytes)); e != 0) {
    problem = fmt::format("/dev/shm has no room for it ({})", std::strerror(e));
  } else {
    m.at = mmap(nullptr, m.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (m.at == MAP_FAILED) problem = fmt::format("mmap: {}", std::strerror(errno));
  }
  close(fd);
  if (!problem.empty()) shm_unlink(name);
  return problem;
}

// On the other ranks: maps the object read-only. Returns the problem, or "".
std::string attach(const char* name, Mapping& m) {
  const int fd = shm_open(name, O_RDONLY, 0);
  if (fd < 0) return fmt::format("shm_open {}: {}", name, std::strerror(errno));
  m.at = mmap(nullptr, m.bytes, PROT_READ, MAP_SHARED, fd, 0);
  const int e = errno;
  close(fd);
  return m.at == MAP_FAILED ? fmt::format("mmap: {}", std::strerror(e)) : "";
}

// Copies `bytes` from `from` (this rank's own matrix, freed right after) to `to` in
// 16 MB steps, handing each step's whole pages of `from` back to the kernel once copied
// (MADV_DONTNEED: they read as zeros afterwards), so that the rank holds about one step
// twice instead of the whole data set.
void move_out(std::byte* to, void* from, std::size_t bytes) {
  constexpr std::size_t kStep = std::size_t(16) << 20;
  const auto page = std::size_t(sysconf(_SC_PAGESIZE));
  auto* source = reinterpret_cast<std::byte*>(from);
  const auto start = std::uintptr_t(source);
  std::uintptr_t released = (start + page - 1) / page * page;  // first page not given back
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t n = std::min(kStep, bytes - done);
    std::memcpy(to + done, source + done, n);
    done += n;
    const std::uintptr_t copied_pages = (start + done) / page * page;
    if (copied_pages > released) {
      madvise(reinterpret_cast<void*>(released), copied_pages - released, MADV_DONTNEED);
      released = copied_pages;
    }
  }
}

}  // namespace

struct MpiDataSharing::Handles {
  MPI_Comm machine = MPI_COMM_NULL;
};

MpiDataSharing::MpiDataSharing(const MpiWorld& world) : mpi_(std::make_unique<Handles>()) {
  if (!world.active()) throw std::logic_error("MpiDataSharing needs an active MpiWorld");
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, world.rank(), MPI_INFO_NULL,
                      &mpi_->machine);
  MPI_Comm_rank(mpi_->machine, &machine_rank_);
  MPI_Comm_size(mpi_->machine, &machine_size_);
}

MpiDataSharing::~MpiDataSharing() {
  MPI_Comm_free(&mpi_->machine);
}

std::optional<models::DataSplit> MpiDataSharing::share(std::optional<models::DataSplit> loaded) {
  if (machine_size_ == 1) return loaded;  // alone on its machine (one rank per node): keep it
  if (loaded)  // the shared layout holds plain values: byte codes are widened first
    for (models::Dataset* set : sets_of(*loaded))
      if (set) set->features.decode_codes();
  Layout layout = layout_of(loads() && loaded ? &*loaded : nullptr);
  auto mapping = std::make_shared<Mapping>();
  mapping->bytes = std::size_t(layout.bytes);  // the loading rank's; the others' after the Bcast
  if (loads() && layout.has_data) {
    static int made = 0;  // one object per run; the count keeps names unique regardless
    const std::string name = fmt::format("/dlsim-data-{}-{}", getpid(), made++);
    copy_text(layout.name, name);
    const std::string problem = create(name.c_str(), *mapping);
    if (!problem.empty()) {
      layout.name[0] = '\0';
      copy_text(layout.problem, problem);
    }
  }
  MPI_Bcast(&layout, int(sizeof layout), MPI_BYTE, 0, mpi_->machine);
  if (!layout.has_data) return std::nullopt;
  mapping->bytes = std::size_t(layout.bytes);
  const auto refuse = [&](const std::string& problem) {
    return sim::InputError(
        "data", fmt::format("could not share the data set ({}) among this machine's ranks: {}; "
                            "--data-per-rank loads a copy in every rank instead",
                            sim::format_bytes(double(layout.bytes)), problem));
  };
  if (layout.name[0] == '\0') throw refuse(layout.problem.data());

  std::string problem = loads() ? "" : attach(layout.name.data(), *mapping);
  int ok = problem.empty(), all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_LAND, mpi_->machine);
  if (loads()) shm_unlink(layout.name.data());  // every rank has it mapped, or gave up
  if (!all_ok) throw refuse(problem.empty() ? "another rank could not map it" : problem);

  auto* start = static_cast<std::byte*>(mapping->at);  // page-aligned: offsets keep kAlign
  if (loads()) {  // copy, freeing this rank's own copy as it goes
    const auto sets = sets_of(*loaded);
    for (std::size_t i = 0; i < sets.size(); ++i) {
      if (!sets[i]) continue;
      const SetShape& s = layout.sets[i];
      move_out(start + s.features_at, sets[i]->features.owned_storage(),
               std::size_t(s.value_bytes * s.rows * s.cols));
      std::memcpy(start + s.labels_at, sets[i]->labels.data(), std::size_t(8 * s.rows));
      sets[i]->features.release();
    }
    loaded.reset();
    mprotect(mapping->at, mapping->bytes, PROT_READ);  // a view is read-only, here too
  }
  std::atomic_thread_fence(std::memory_order_seq_cst);
  MPI_Barrier(mpi_->machine);  // the rows are in place before anyone reads them
  std::atomic_thread_fence(std::memory_order_seq_cst);

  models::DataSplit split;
  const std::shared_ptr<const void> keep_alive = mapping;
  auto make = [&](const SetShape& s) {
    models::Dataset d;
    d.features = models::FeatureMatrix::view_of(
        start + s.features_at, s.rows, s.cols, keep_alive,
        s.value_bytes == 4 ? models::Storage::float32 : models::Storage::float64);
    d.labels = Eigen::Map<const models::Vector>(
        reinterpret_cast<const double*>(start + s.labels_at), s.rows);
    d.classes = int(s.classes);
    return d;
  };
  split.train = make(layout.sets[0]);
  if (layout.sets[1].present) split.test = make(layout.sets[1]);
  if (layout.sets[2].present) split.eval = make(layout.sets[2]);
  return split;
}

#else  // built without MPI: there is never an active MpiWorld to share with

struct MpiDataSharing::Handles {};

MpiDataSharing::MpiDataSharing(const MpiWorld&) {
  throw std::logic_error("MpiDataSharing needs an MPI build");
}
MpiDataSharing::~MpiDataSharing() = default;
std::optional<models::DataSplit> MpiDataSharing::share(std::optional<models::DataSplit>) {
  return std::nullopt;
}

#endif

}  // namespace dlsim::tool
