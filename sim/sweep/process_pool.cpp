#include "sim/sweep/process_pool.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace dlsim::sim {

namespace {

using Clock = std::chrono::steady_clock;

struct Running {
  pid_t pid;
  int pidfd;  // readable when the child has ended; -1 when the kernel lacks pidfd_open
  std::size_t index;
  Clock::time_point start;
};

int open_pidfd(pid_t pid) {
  return int(::syscall(SYS_pidfd_open, pid, 0));
}

// Sleeps until a child ends or `timeout` passes: poll() on the children's pidfds, or
// short naps when pidfds are not available.
void wait_for_any(const std::vector<Running>& running, std::chrono::milliseconds timeout) {
  std::vector<pollfd> fds;
  for (const Running& r : running) {
    if (r.pidfd < 0) {
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
      return;
    }
    fds.push_back({r.pidfd, POLLIN, 0});
  }
  ::poll(fds.data(), nfds_t(fds.size()), int(timeout.count()));
}

// Only async-signal-safe calls between fork and exec.
pid_t spawn(const ChildCommand& command, const std::vector<char*>& argv, pid_t parent) {
  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("cannot fork: ") + std::strerror(errno));
  if (pid > 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
  const int fd = ::open(command.log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (fd >= 0) {
    ::dup2(fd, STDOUT_FILENO);
    ::dup2(fd, STDERR_FILENO);
    if (fd > STDERR_FILENO) ::close(fd);
  }
  ::execv(argv[0], argv.data());
  ::_exit(127);
}

}  // namespace

std::string ChildOutcome::what() const {
  if (signal != 0)
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
  return "exit status " + std::to_string(exit_code);
}

std::filesystem::path current_executable() {
  return std::filesystem::read_symlink("/proc/self/exe");
}

void run_children(const NextCommand& next, int parallel, const PoolCallbacks& callbacks) {
  if (parallel < 1) parallel = 1;
  const pid_t self = ::getpid();
  std::vector<Running> running;
  std::size_t started = 0;
  bool more = true;
  auto last_tick = Clock::now();
  while (more || !running.empty()) {
    while (more && int(running.size()) < parallel) {
      const std::optional<ChildCommand> command = next();
      if (!command) {
        more = false;
        break;
      }
      // The argv array is built before forking: no allocation in the child.
      std::vector<char*> argv;
      for (const std::string& a : command->argv) argv.push_back(const_cast<char*>(a.c_str()));
      argv.push_back(nullptr);
      if (callbacks.on_start) callbacks.on_start(started);
      const pid_t pid = spawn(*command, argv, self);
      running.push_back({pid, open_pidfd(pid), started, Clock::now()});
      ++started;
    }
    bool reaped = false;
    for (std::size_t r = 0; r < running.size();) {
      int status = 0;
      const pid_t got = ::waitpid(running[r].pid, &status, WNOHANG);
      if (got == 0 || (got < 0 && errno == EINTR)) {
        ++r;
        continue;
      }
      ChildOutcome outcome;
      outcome.wall_s = std::chrono::duration<double>(Clock::now() - running[r].start).count();
      if (got > 0 && WIFEXITED(status)) {
        outcome.exit_code = WEXITSTATUS(status);
        outcome.ok = outcome.exit_code == 0;
      } else if (got > 0 && WIFSIGNALED(status)) {
        outcome.signal = WTERMSIG(status);
      }
      const std::size_t index = running[r].index;
      if (running[r].pidfd >= 0) ::close(running[r].pidfd);
      running.erase(running.begin() + std::ptrdiff_t(r));
      reaped = true;
      if (callbacks.on_finish) callbacks.on_finish(index, outcome);
    }
    if (!reaped && !running.empty()) wait_for_any(running, std::chrono::milliseconds(200));
    if (callbacks.on_tick && Clock::now() - last_tick > std::chrono::milliseconds(200)) {
      callbacks.on_tick();
      last_tick = Clock::now();
    }
  }
}

}  // namespace dlsim::sim
