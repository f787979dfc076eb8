#include "sim/metrics/progress_line.hpp"

#include <fmt/format.h>

namespace dlsim::sim {

namespace {
std::string human_bits(double bits) {
  const char* units[] = {"b", "Kb", "Mb", "Gb", "Tb", "Pb"};
  int u = 0;
  while (bits >= 1000 && u < 5) bits /= 1000, ++u;
  return fmt::format("{:.1f} {}", bits, units[u]);
}
}  // namespace

void ProgressLine::on_progress(const Progress& p) {
  std::string line = fmt::format("sim {:.6g} s | iter {}", p.time_s, p.iteration);
  if (p.epoch) line += fmt::format(" | epoch {:.2f}", *p.epoch);
  line += " | " + human_bits(double(p.bits_total));
  if (p.fraction_done > 0) {
    line += fmt::format(" | {:.0f}%", 100 * p.fraction_done);
    const double eta = p.wall_s * (1 - p.fraction_done) / p.fraction_done;
    line += fmt::format(" | ETA {:.0f} s", eta);
  }
  std::fprintf(out_, "\r\033[K%s", line.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressLine::on_finish(const nlohmann::json&) {
  if (drawn_) std::fprintf(out_, "\r\033[K");
}

}  // namespace dlsim::sim
