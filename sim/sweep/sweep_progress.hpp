// The sweep's one progress line on stderr (docs/design.md §3), redrawn in place:
//   sweep: 7/12 done, 1 failed, 2 running, 0:42 elapsed, ETA 0:30
// ETA = elapsed · (points left / points finished in this invocation).
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace dlsim::sim {

class SweepProgress {
 public:
  SweepProgress(std::FILE* out, bool enabled) : out_(out), enabled_(enabled) {}

  /// done/failed/running/total count every point of this invocation's share;
  /// `finished_here` the runs that ended during this invocation.
  void draw(std::size_t done, std::size_t failed, std::size_t running, std::size_t total,
            std::size_t finished_here, std::size_t left);
  /// Erases the line (before printing a message, and at the end).
  void clear();

  static std::string clock_text(double seconds);  // 75 -> "1:15", 3700 -> "1:01:40"

 private:
  std::FILE* out_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace dlsim::sim
