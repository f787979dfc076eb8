#include "tools/dlsim/memory_limit_option.hpp"

#include <stdexcept>

#include <nlohmann/json.hpp>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/quantity.hpp"

namespace dlsim::tool {

void add_memory_limit_option(CLI::App* command, std::string& text) {
  command->add_option("--memory-limit", text,
                      "Refuse the run (exit 2) when its estimated peak memory exceeds SIZE "
                      "(e.g. 2.6GB), instead of the memory available (MemAvailable, "
                      "RLIMIT_AS/RLIMIT_DATA, cgroup limit)");
}

std::optional<double> parse_memory_limit(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double bits = 0;
  try {
    bits = sim::parse_size_bits(nlohmann::json(text));
  } catch (const std::invalid_argument& e) {
    throw sim::InputError("--memory-limit", e.what());
  }
  if (!(bits > 0))
    throw sim::InputError("--memory-limit", "must be a positive size, got '" + text + "'");
  return bits / 8;
}

}  // namespace dlsim::tool
