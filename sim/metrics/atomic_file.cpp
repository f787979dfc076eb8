#include "sim/metrics/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace dlsim::sim {

namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& file) {
  throw std::runtime_error("cannot " + what + " " + file.string() + ": " + std::strerror(errno));
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::string& text,
                           bool durable) {
  // A per-process temporary name: shards may write the same file concurrently.
  const std::filesystem::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) fail("write", tmp);
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      ::close(fd);
      fail("write", tmp);
    }
    written += std::size_t(n);
  }
  if (durable && ::fsync(fd) != 0) {
    ::close(fd);
    fail("sync", tmp);
  }
  if (::close(fd) != 0) fail("close", tmp);
  if (::rename(tmp.c_str(), file.c_str()) != 0) fail("rename", tmp);
  if (!durable) return;
  const std::filesystem::path parent = file.has_parent_path() ? file.parent_path() : ".";
  if (const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);  // best effort: some file systems refuse to sync folders
    ::close(dir);
  }
}

}  // namespace dlsim::sim
