#include "sim/metrics/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"

namespace dlsim::sim {
namespace {

namespace fs = std::filesystem;

// "pid N" of a process holding an flock on the file, from /proc/locks (lines such as
// `3: FLOCK  ADVISORY  WRITE 4242 fe:01:1234567 0 EOF`); "another process" when it is
// not listed (a holder on another machine of a network file system).
std::string holder(int fd) {
  struct stat info {};
  if (::fstat(fd, &info) != 0) return "another process";
  std::ifstream locks("/proc/locks");
  std::string line;
  std::string inode = std::to_string(info.st_ino);
  inode.insert(inode.begin(), ':');  // (not ":" + ..., which trips GCC 12's -Wrestrict)
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string number, kind, advisory, access, pid, device;
    fields >> number >> kind;
    if (kind == "->") fields >> kind;  // a waiter, listed under the holder
    fields >> advisory >> access >> pid >> device;
    if (kind == "FLOCK" && device.size() > inode.size() && device.ends_with(inode))
      return "pid " + pid;
  }
  return "another process";
}

}  // namespace

void check_output_folder_name(const fs::path& folder, const std::string& where) {
  const std::string& text = folder.native();
  if (text.empty()) throw InputError(where, "empty folder name");
  if (text.find('\0') != std::string::npos) throw InputError(where, "folder name has a NUL byte");
  for (const fs::path& part : folder)
    if (part.native().size() > 255)
      throw InputError(where, "a folder name is longer than 255 bytes, the file system's limit");
  // The folder itself and every ancestor that exists must be folders.
  std::error_code ec;
  for (fs::path at = folder; !at.empty(); at = at.parent_path()) {
    const fs::file_status status = fs::status(at, ec);
    if (fs::exists(status) && !fs::is_directory(status))
      throw InputError(where, (at == folder ? std::string("exists") : at.string() + " exists") +
                                  " and is not a folder");
    if (at == at.parent_path()) break;
  }
}

OutputLock::OutputLock(const fs::path& folder, const std::string& where, Mode mode,
                       const std::string& file) {
  check_output_folder_name(folder, where);
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec) throw InputError(where, "cannot create folder " + folder.string() + ": " + ec.message());
  const fs::path lock = folder / file;
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw InputError(where,
                     "cannot write " + lock.string() + ": " + messages::system_error_text(errno));
  if (::flock(fd_, (mode == Mode::exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) != 0) {
    const int error = errno;
    const std::string who = error == EWOULDBLOCK ? holder(fd_) : "";
    ::close(fd_);
    fd_ = -1;
    if (error == EWOULDBLOCK)
      throw InputError(where, "output folder " + folder.string() + " in use by " + who +
                                  " (one dlsim writes into a folder at a time)");
    throw InputError(where,
                     "cannot lock " + lock.string() + ": " + messages::system_error_text(error));
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing drops the lock
}

}  // namespace dlsim::sim
