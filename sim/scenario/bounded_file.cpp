#include "sim/scenario/bounded_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"

namespace dlsim::sim {
namespace {

std::string mebibytes(std::size_t bytes) {
  return std::to_string(bytes >> 20) + " MiB";
}

// Closes the descriptor on every path out of read_bounded_text.
struct Descriptor {
  int fd;
  ~Descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

}  // namespace

std::string read_bounded_text(const std::string& path, std::size_t limit, const std::string& what) {
  if (path.find('\0') != std::string::npos) throw InputError("file name", "contains a NUL byte");
  const Descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0)
    throw InputError(path, "cannot read file: " + messages::system_error_text(errno));
  struct stat info {};
  if (::fstat(file.fd, &info) != 0)
    throw InputError(path, "cannot read file: " + messages::system_error_text(errno));
  if (S_ISDIR(info.st_mode)) throw InputError(path, "cannot read file: is a directory");
  if (!S_ISREG(info.st_mode) && !S_ISFIFO(info.st_mode))
    throw InputError(path, "cannot read file: not a regular file or a pipe");
  const std::string too_large = "file too large: a " + what + " is at most " + mebibytes(limit);
  if (S_ISREG(info.st_mode) && std::size_t(info.st_size) > limit) throw InputError(path, too_large);

  std::string text;
  char buffer[1 << 16];
  while (true) {
    const ssize_t got = ::read(file.fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      throw InputError(path, "cannot read file: " + messages::system_error_text(errno));
    }
    if (got == 0) break;
    if (text.size() + std::size_t(got) > limit) throw InputError(path, too_large);
    text.append(buffer, std::size_t(got));
  }
  return text;
}

}  // namespace dlsim::sim
