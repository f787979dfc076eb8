#include "sim/run/memory_guard.hpp"

#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

constexpr double kBytesPerValue = 8;
constexpr double kVectorsPerNode = 6;

std::string gigabytes(double bytes) {
  return fmt::format("{:.3g} GB", bytes / 1e9);
}

void check_fits(const std::string& key, double needed, const std::string& how) {
  const auto available = available_memory_bytes();
  if (!available || needed <= *available) return;
  throw InputError(key, fmt::format("needs an estimated {} of memory ({}), more than the {} "
                                    "available (MemAvailable in /proc/meminfo)",
                                    gigabytes(needed), how, gigabytes(*available)));
}

}  // namespace

std::optional<double> available_memory_bytes() {
  std::ifstream in("/proc/meminfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("MemAvailable:", 0) != 0) continue;
    std::istringstream fields(line.substr(13));
    double kilobytes = 0;
    if (fields >> kilobytes) return kilobytes * 1024;
  }
  return std::nullopt;
}

void check_data_memory(const Scenario& s) {
  // Sources that know their size before loading (generated data) declare it.
  if (!s.data.options) return;
  if (const auto memory = s.data.options->memory())
    check_fits("data." + memory->key, memory->bytes, memory->how);
}

void check_model_memory(const Scenario& s, std::int64_t dimension, int nodes) {
  (void)s;
  const double needed = double(nodes) * double(dimension) * kVectorsPerNode * kBytesPerValue;
  check_fits("workers", needed,
             fmt::format("{} nodes x {} parameters x {} vectors x 8 bytes", nodes, dimension,
                         kVectorsPerNode));
}

}  // namespace dlsim::sim
