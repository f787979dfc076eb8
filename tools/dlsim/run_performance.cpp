#include "tools/dlsim/run_performance.hpp"

#include <charconv>

#include <fmt/format.h>

#include "sim/engine/job_pool.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::tool {

int parse_threads(const std::string& text) {
  int value = -1;
  const char* end = text.data() + text.size();
  const auto [last, error] = std::from_chars(text.data(), end, value);
  if (text.empty() || error != std::errc() || last != end || value < 0)
    throw sim::InputError("--threads",
                          "must be a whole number >= 0 (0 = all cores), got '" + text + "'");
  if (value > 1024) throw sim::InputError("--threads", "at most 1024, got " + text);
  return sim::resolve_threads(value);
}

void print_profile(std::FILE* out, const nlohmann::json& summary) {
  const nlohmann::json& t = summary["totals"];
  const double wall = t["wall_s"].get<double>();
  auto share = [&](double s) { return wall > 0 ? 100 * s / wall : 0.0; };
  std::string text = fmt::format("{:<26}{:>12}{:>9}\n", "wall time", "seconds", "% wall");
  for (const auto& [key, label] : {std::pair{"wall_math_s", "math (gradients, steps)"},
                                   std::pair{"wall_compress_s", "compression"},
                                   std::pair{"wall_metrics_s", "metrics evaluation"},
                                   std::pair{"wall_engine_s", "engine (events, network)"}}) {
    const double s = t[key].get<double>();
    text += fmt::format("{:<26}{:>12.3f}{:>8.1f}%\n", label, s, share(s));
  }
  text += fmt::format("{:<26}{:>12.3f}{:>8.1f}%\n", "total", wall, 100.0);
  if (const double beside = t.value("metrics_thread_s", 0.0); beside > 0)
    text += fmt::format("{:<26}{:>12.3f}  (evaluating beside the above: metrics or pool threads)\n",
                        "metrics beside", beside);
  text += fmt::format("{:<26}{:>12}\n", "events", t["events"].get<std::uint64_t>());
  text += fmt::format("{:<26}{:>12.0f}\n", "events/s", t["events_per_second"].get<double>());
  text += fmt::format("{:<26}{:>12} ({} phases, {:.3f} s summed over threads)\n", "compute jobs",
                      t["jobs"].get<std::uint64_t>(), t["job_phases"].get<std::uint64_t>(),
                      t["jobs_thread_s"].get<double>());
  text += fmt::format("{:<26}{:>12.1f} MB\n", "peak RSS",
                      double(t["peak_rss_bytes"].get<std::uint64_t>()) / 1e6);
  if (const auto bulk = t.value("heap_prefaulted_bytes", std::uint64_t(0)); bulk > 0)
    text +=
        fmt::format("{:<26}{:>12.1f} MB (mapped in bulk on a second thread, not one fault each)\n",
                    "heap populated", double(bulk) / 1e6);
  text += fmt::format("{:<26}{:>12}\n", "threads", t["threads"].get<int>());
  std::fputs(text.c_str(), out);
}

}  // namespace dlsim::tool
