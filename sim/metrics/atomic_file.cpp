#include "sim/metrics/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <utility>

namespace dlsim::sim {

namespace {

[[noreturn]] void fail(const std::string& what, const std::filesystem::path& file) {
  throw std::runtime_error("cannot " + what + " " + file.string() + ": " + std::strerror(errno));
}

// Closes the descriptor on every way out.
struct Descriptor {
  int fd = -1;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
  int release() { return std::exchange(fd, -1); }
};

// Removes the named temporary unless the rename consumed it.
struct TemporaryName {
  const std::filesystem::path& path;
  bool exists = false;
  ~TemporaryName() {
    if (exists) ::unlink(path.c_str());
  }
};

void write_all(int fd, const std::string& text, const std::filesystem::path& file) {
  std::size_t written = 0;
  while (written < text.size()) {
    const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      fail("write", file);
    }
    written += std::size_t(n);
  }
}

}  // namespace

void write_file_atomically(const std::filesystem::path& file, const std::string& text,
                           bool durable) {
  const std::filesystem::path parent = file.has_parent_path() ? file.parent_path() : ".";
  // A per-process temporary name: shards may write the same file concurrently.
  const std::filesystem::path tmp = file.string() + ".tmp." + std::to_string(::getpid());
  TemporaryName name{tmp};
  Descriptor out{::open(parent.c_str(), O_WRONLY | O_TMPFILE | O_CLOEXEC, 0644)};
  const bool unnamed = out.fd >= 0;
  if (!unnamed) out.fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (out.fd < 0) fail("write", tmp);
  name.exists = !unnamed;
  write_all(out.fd, text, tmp);
  if (durable && ::fsync(out.fd) != 0) fail("sync", tmp);
  if (unnamed) {
    // Name the complete file (through /proc, which needs no privilege), replacing a
    // temporary a killed process of the same pid may have left.
    const std::string proc = "/proc/self/fd/" + std::to_string(out.fd);
    ::unlink(tmp.c_str());
    if (::linkat(AT_FDCWD, proc.c_str(), AT_FDCWD, tmp.c_str(), AT_SYMLINK_FOLLOW) != 0)
      fail("write", tmp);
    name.exists = true;
  }
  if (::close(out.release()) != 0) fail("close", tmp);
  if (::rename(tmp.c_str(), file.c_str()) != 0) fail("rename", tmp);
  name.exists = false;
  if (!durable) return;
  if (const int dir = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC); dir >= 0) {
    ::fsync(dir);  // best effort: some file systems refuse to sync folders
    ::close(dir);
  }
}

}  // namespace dlsim::sim
