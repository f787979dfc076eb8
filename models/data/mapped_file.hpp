// A file's bytes mapped read-only into memory (mmap), for readers that go through a file
// once (the Fashion-MNIST archives) or keep it (the data cache's entries): no copy into a
// buffer of our own. Pages come in as they are first read, and each such fault maps the
// file's next pages too (the kernel's fault-around, 16 pages), so a whole pass costs few
// faults, and a reader that needs only part of a file pays only for that part: a run that
// finds its images in the cache reads just the first and last page of each 26 MB archive
// (its header and trailer). Populating the whole mapping up front (MAP_POPULATE) made those
// runs 3 ms slower and their peak RSS 27 MB higher.
// Unlike read(), a mapping does not survive another process truncating the file while it is
// read: an access past the new end faults (SIGBUS). Every live MappedFile is listed, so
// that a SIGBUS handler can tell such a fault from any other and name the file
// (mapped_file_fault.hpp, which the dlsim command installs).
// A file read whole and often (a cache entry) can ask for 2 MiB pages (Pages::huge): see
// the constructor.
#pragma once

#include <cstddef>
#include <string>

namespace dlsim::models {

class MappedFile {
 public:
  /// Maps `path` (a regular file). Throws std::system_error when it cannot be opened or
  /// mapped, or is not a regular file: it is opened without blocking, so a FIFO with no
  /// writer (or a device) is refused at once instead of holding the run up in open().
  ///
  /// Pages::huge (for a file read whole, at least 2 MiB long): the file is mapped at a
  /// 2 MiB boundary and marked MADV_HUGEPAGE. When the page cache holds it in 2 MiB folios,
  /// the kernel then maps each with one entry (FilePmdMapped in /proc/PID/smaps) instead
  /// of 512. On the 2-core VM of the README, a first pass over Fashion-MNIST's 47 MB entry
  /// took 2-3 ms so mapped against 31-46 ms in 4 KiB pages. The page cache holds such
  /// folios when a single write() made the file (DecodedCache::store) or when a mapping
  /// marked so read it in; pages another reader brought in stay 4 KiB until evicted.
  enum class Pages { small, huge };
  explicit MappedFile(const std::string& path, Pages pages = Pages::small);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

  /// The path of the live MappedFile whose bytes hold `address`, or nullptr (also for
  /// files mapped while kMostListed others were). Async-signal-safe: it only reads atomics.
  static const char* path_at(const void* address) noexcept;
  static constexpr int kMostListed = 256;

 private:
  std::string path_;  // listed by address while the mapping lives
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
  int listed_ = -1;  // its place in the list, or -1
};

}  // namespace dlsim::models
