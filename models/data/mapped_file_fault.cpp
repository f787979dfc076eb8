#include "models/data/mapped_file_fault.hpp"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstring>

#include "models/data/mapped_file.hpp"

namespace dlsim::models {

namespace {

// write(2) only: the handler may run in the middle of anything (malloc, stdio).
void write_text(const char* text) noexcept {
  std::size_t left = std::strlen(text);
  while (left > 0) {
    const ssize_t n = ::write(STDERR_FILENO, text, left);
    if (n <= 0) return;
    text += n;
    left -= std::size_t(n);
  }
}

// Set by the first thread to report. Threads that read the truncated file at once (an
// evaluation's chunks) all fault; one line is enough, and two would interleave.
std::atomic<bool> reported{false};
static_assert(std::atomic<bool>::is_always_lock_free, "a handler may only touch lock-free atomics");

void on_bus_error(int signal_number, siginfo_t* info, void* /*context*/) {
  // si_code > 0: a fault, whose si_addr is the address read (a sent signal has none).
  if (const char* path = info->si_code > 0 ? MappedFile::path_at(info->si_addr) : nullptr) {
    // The others wait for the reporter's _exit, which ends every thread.
    if (reported.exchange(true))
      for (;;) ::pause();
    write_text("dlsim: error: ");
    write_text(path);
    write_text(
        ": the file could no longer be read during the run (another program truncated it, "
        "or the disk failed); the run cannot go on\n");
    ::_exit(1);
  }
  // Not a mapped file's: the default action, once this handler returns (the signal is
  // blocked until then; a fault would also recur on the same instruction).
  struct sigaction default_action {};
  default_action.sa_handler = SIG_DFL;
  sigemptyset(&default_action.sa_mask);
  ::sigaction(signal_number, &default_action, nullptr);
  ::raise(signal_number);
}

}  // namespace

void report_faults_in_mapped_files() {
  struct sigaction action {};
  action.sa_sigaction = on_bus_error;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_SIGINFO;
  ::sigaction(SIGBUS, &action, nullptr);
}

}  // namespace dlsim::models
