// The memory available to the run and the refusal (memory_guard.hpp).
#include "sim/run/memory_guard.hpp"

#include <sys/resource.h>

#include <fstream>
#include <sstream>
#include <string>

#include <fmt/format.h>

#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

// Limits at or above this are "unlimited" (cgroup v1 reports 2^63 rounded to a page).
constexpr double kUnlimited = 1e18;

// A "Key:   <n> kB" field of a /proc file, in bytes.
std::optional<double> proc_field(const std::string& file, const std::string& key) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(key + ":", 0) != 0) continue;
    std::istringstream fields(line.substr(key.size() + 1));
    double kilobytes = 0;
    if (fields >> kilobytes) return kilobytes * 1024;
  }
  return std::nullopt;
}

// A file holding one number (cgroup limits); nothing for "max", unlimited or unreadable.
std::optional<double> number_in(const std::string& file) {
  std::ifstream in(file);
  double value = 0;
  if (!(in >> value) || value <= 0 || value >= kUnlimited) return std::nullopt;
  return value;
}

// The memory limit of this process's cgroup: v2 ("0::/path" -> memory.max) or v1
// ("N:memory:/path" -> memory.limit_in_bytes), also under the mount root itself (inside a
// container the path names the host's hierarchy).
std::optional<MemoryLimit> cgroup_limit() {
  std::ifstream in("/proc/self/cgroup");
  std::string line;
  std::optional<MemoryLimit> best;
  auto consider = [&](const std::string& file, const char* source) {
    const auto v = number_in(file);
    if (v && (!best || *v < best->bytes)) best = MemoryLimit{*v, source};
  };
  while (std::getline(in, line)) {
    const auto first = line.find(':'), second = line.find(':', first + 1);
    if (first == std::string::npos || second == std::string::npos) continue;
    const std::string controllers = line.substr(first + 1, second - first - 1);
    const std::string path = line.substr(second + 1);
    if (controllers.empty()) {
      consider("/sys/fs/cgroup" + path + "/memory.max", "cgroup memory.max");
      consider("/sys/fs/cgroup/memory.max", "cgroup memory.max");
    } else if (controllers == "memory") {
      consider("/sys/fs/cgroup/memory" + path + "/memory.limit_in_bytes",
               "cgroup memory.limit_in_bytes");
      consider("/sys/fs/cgroup/memory/memory.limit_in_bytes", "cgroup memory.limit_in_bytes");
    }
  }
  return best;
}

std::optional<double> soft_limit(int resource) {
  struct rlimit r {};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY) return std::nullopt;
  return double(r.rlim_cur);
}

}  // namespace

std::optional<MemoryLimit> memory_limit(std::optional<double> given) {
  if (given) return MemoryLimit{*given, "--memory-limit"};
  std::optional<MemoryLimit> best;
  auto consider = [&](std::optional<double> bytes, const char* source) {
    if (bytes && (!best || *bytes < best->bytes)) best = MemoryLimit{*bytes, source};
  };
  consider(proc_field("/proc/meminfo", "MemAvailable"), "MemAvailable in /proc/meminfo");
  if (const auto as = soft_limit(RLIMIT_AS)) {
    // The estimate counts resident memory; mapped but not resident address space
    // (shared libraries, reserved stacks) also counts against RLIMIT_AS.
    const double size = proc_field("/proc/self/status", "VmSize").value_or(0);
    const double resident = proc_field("/proc/self/status", "VmRSS").value_or(0);
    consider(std::max(0.0, *as - std::max(0.0, size - resident)), "RLIMIT_AS");
  }
  consider(soft_limit(RLIMIT_DATA), "RLIMIT_DATA");
  if (const auto cgroup = cgroup_limit()) consider(cgroup->bytes, cgroup->source.c_str());
  return best;
}

void check_memory(const MemoryEstimate& estimate, const std::optional<MemoryLimit>& limit) {
  if (!limit || estimate.bytes <= limit->bytes) return;
  const MemoryPiece& part = estimate.largest();
  throw InputError(part.key,
                   fmt::format("the run needs about {} (estimate; largest part: {} {} = {}), "
                               "more than the {} available ({})",
                               format_bytes(estimate.bytes), part.name, format_bytes(part.bytes),
                               part.how, format_bytes(limit->bytes), limit->source));
}

}  // namespace dlsim::sim
