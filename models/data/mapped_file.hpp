// A file's bytes mapped read-only into memory (mmap, populated at once), for readers that
// go through a whole file once (the Fashion-MNIST archives): no copy into a buffer of our
// own, and no page fault per 4 KB page of that buffer (Fashion-MNIST: 30 MB of archives).
// Unlike read(), a mapping does not survive another process truncating the file while it is
// read (the access faults, SIGBUS): data files are not expected to change under a run.
#pragma once

#include <cstddef>
#include <string>

namespace dlsim::models {

class MappedFile {
 public:
  /// Maps `path` (a regular file). Throws std::system_error when it cannot be opened or
  /// mapped, or is not a regular file: it is opened without blocking, so a FIFO with no
  /// writer (or a device) is refused at once instead of holding the run up in open().
  explicit MappedFile(const std::string& path);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  const unsigned char* data() const { return data_; }
  std::size_t size() const { return size_; }

 private:
  const unsigned char* data_ = nullptr;
  std::size_t size_ = 0;
};

}  // namespace dlsim::models
