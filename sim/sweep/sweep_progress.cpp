#include "sim/sweep/sweep_progress.hpp"

#include <fmt/format.h>

namespace dlsim::sim {

std::string SweepProgress::clock_text(double seconds) {
  const long s = long(seconds + 0.5);
  if (s >= 3600) return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
  return fmt::format("{}:{:02}", s / 60, s % 60);
}

void SweepProgress::draw(std::size_t done, std::size_t failed, std::size_t running,
                         std::size_t total, std::size_t finished_here, std::size_t left) {
  if (!enabled_) return;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  std::string eta = "--";
  if (finished_here > 0) eta = clock_text(elapsed * double(left) / double(finished_here));
  std::string line = fmt::format("sweep: {}/{} done", done, total);
  if (failed > 0) line += fmt::format(", {} failed", failed);
  line += fmt::format(", {} running, {} elapsed, ETA {}", running, clock_text(elapsed), eta);
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void SweepProgress::clear() {
  if (!drawn_) return;
  std::fprintf(out_, "\r\033[K");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace dlsim::sim
