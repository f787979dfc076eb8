// Runs commands as child processes, at most N at a time. Each child gets its own
// process (fork + exec), so a point that crashes or runs out of memory cannot take
// the sweep down, and its memory is returned when it ends. Children are killed
// (PR_SET_PDEATHSIG) when the sweep process dies, so a killed sweep leaves no
// orphan writing into a run folder that a resumed sweep is redoing.
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace dlsim::sim {

struct ChildCommand {
  std::vector<std::string> argv;  // argv[0] is the executable path
  std::filesystem::path log;      // receives the child's stdout and stderr
};

struct ChildOutcome {
  bool ok = false;     // exited with status 0
  int exit_code = -1;  // when it exited
  int signal = 0;      // when a signal ended it
  double wall_s = 0;
  std::string what() const;  // "exit status 1", "killed by signal 9 (Killed)"
};

struct PoolCallbacks {
  std::function<void(std::size_t)> on_start;                        // before fork
  std::function<void(std::size_t, const ChildOutcome&)> on_finish;  // after reaping
  std::function<void()> on_tick;  // about five times a second while children run
};

/// Gives the next command to start, or nothing when there are no more (asked whenever
/// fewer than `parallel` children run; after the first nothing it is not asked again).
using NextCommand = std::function<std::optional<ChildCommand>()>;

/// Runs the commands that `next` gives with at most `parallel` children at once; the
/// callbacks name a command by its start order (0 for the first one `next` gave).
void run_children(const NextCommand& next, int parallel, const PoolCallbacks& callbacks);

/// The path of the running executable (/proc/self/exe resolved).
std::filesystem::path current_executable();

}  // namespace dlsim::sim
