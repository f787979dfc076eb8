#include "models/data/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <system_error>

namespace dlsim::models {

namespace {

// The live mappings, for path_at() in a signal handler: fixed places of lock-free atomics
// (no allocation, no lock). A place is taken by its flag; its range is set last and
// cleared first, so path_at() never pairs a range with another file's path.
struct Listed {
  std::atomic<bool> taken{false};
  std::atomic<std::uintptr_t> begin{0}, end{0};
  std::atomic<const char*> path{nullptr};
};
static_assert(std::atomic<std::uintptr_t>::is_always_lock_free &&
              std::atomic<const char*>::is_always_lock_free);
Listed listed[MappedFile::kMostListed];

int list(const unsigned char* data, std::size_t size, const char* path) noexcept {
  for (int i = 0; i < MappedFile::kMostListed; ++i) {
    Listed& l = listed[i];
    if (l.taken.exchange(true, std::memory_order_acquire)) continue;
    l.path.store(path, std::memory_order_relaxed);
    l.end.store(std::uintptr_t(data) + size, std::memory_order_relaxed);
    l.begin.store(std::uintptr_t(data), std::memory_order_release);
    return i;
  }
  return -1;  // not listed: a fault in it is reported as any other SIGBUS
}

void unlist(int i) noexcept {
  Listed& l = listed[i];
  l.begin.store(0, std::memory_order_release);
  l.end.store(0, std::memory_order_relaxed);
  l.path.store(nullptr, std::memory_order_relaxed);
  l.taken.store(false, std::memory_order_release);
}

constexpr std::uintptr_t kHugePage = std::uintptr_t(2) << 20;

// Maps `size` bytes of `fd` at a 2 MiB boundary, marked MADV_HUGEPAGE (the constructor's
// Pages::huge): a reservation of 2 MiB more than the file, the file mapped over its first
// boundary, and the rest of the reservation given back.
void* map_huge(int fd, std::size_t size) {
  const auto page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t length = (std::uintptr_t(size) + page - 1) / page * page;
  void* reserved = ::mmap(nullptr, length + kHugePage, PROT_NONE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (reserved == MAP_FAILED) return MAP_FAILED;
  const auto from = std::uintptr_t(reserved), to = from + length + kHugePage;
  const std::uintptr_t at = (from + kHugePage - 1) / kHugePage * kHugePage;
  void* p = ::mmap(reinterpret_cast<void*>(at), size, PROT_READ, MAP_PRIVATE | MAP_FIXED, fd, 0);
  if (p == MAP_FAILED) {
    const int error = errno;
    ::munmap(reserved, length + kHugePage);
    errno = error;
    return MAP_FAILED;
  }
  if (at > from) ::munmap(reserved, at - from);
  if (to > at + length) ::munmap(reinterpret_cast<void*>(at + length), to - (at + length));
  ::madvise(p, size, MADV_HUGEPAGE);  // advice only: a kernel without THP maps 4 KiB pages
  return p;
}

}  // namespace

const char* MappedFile::path_at(const void* address) noexcept {
  const auto a = std::uintptr_t(address);
  for (const Listed& l : listed) {
    const std::uintptr_t begin = l.begin.load(std::memory_order_acquire);
    if (begin != 0 && a >= begin && a < l.end.load(std::memory_order_relaxed))
      return l.path.load(std::memory_order_relaxed);
  }
  return nullptr;
}

MappedFile::MappedFile(const std::string& path, Pages pages) : path_(path) {
  // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "cannot open file");
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    const int error = errno;
    ::close(fd);
    throw std::system_error(error, std::generic_category(), "cannot read file");
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    throw std::system_error(EINVAL, std::generic_category(), "not a regular file");
  }
  size_ = std::size_t(st.st_size);
  if (size_ > 0) {
    void* p = pages == Pages::huge && size_ >= std::size_t(kHugePage)
                  ? map_huge(fd, size_)
                  : ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) {
      const int error = errno;
      ::close(fd);
      throw std::system_error(error, std::generic_category(), "cannot map file");
    }
    data_ = static_cast<const unsigned char*>(p);
    listed_ = list(data_, size_, path_.c_str());
  }
  ::close(fd);  // the mapping stays
}

MappedFile::~MappedFile() {
  if (listed_ >= 0) unlist(listed_);
  if (data_) ::munmap(const_cast<unsigned char*>(data_), size_);
}

}  // namespace dlsim::models
