// Resource guard (issues 10 and 22): a scenario whose estimated peak memory
// (memory_estimate.hpp) exceeds the memory available is refused with an InputError
// (exit 2) before anything is allocated or written, instead of dying halfway with
// std::bad_alloc or the OOM killer. The memory available is the smallest of
//   MemAvailable in /proc/meminfo;
//   RLIMIT_AS (less the address space mapped but not resident now: libraries, stacks)
//   and RLIMIT_DATA, when set;
//   the cgroup's memory limit (v2 memory.max, v1 memory.limit_in_bytes), when set;
// or, instead of all of them, `--memory-limit SIZE`. No check when none is known.
#pragma once

#include <optional>
#include <string>

#include "sim/run/memory_estimate.hpp"

namespace dlsim::sim {

/// A memory limit and where it comes from ("MemAvailable in /proc/meminfo",
/// "RLIMIT_AS", "cgroup memory.max", "--memory-limit").
struct MemoryLimit {
  double bytes = 0;
  std::string source;
};

/// `given` (bytes, from --memory-limit) when set, else the smallest limit the machine,
/// the process and its cgroup impose; nothing when none can be read.
std::optional<MemoryLimit> memory_limit(std::optional<double> given);

/// Throws InputError at the key of the estimate's largest piece ("workers",
/// "data.samples", "data.path", "algorithm.batch_size") when it exceeds `limit`:
/// "the run needs about 12.4 GB (estimate; ...), more than the 2.6 GB available (...)".
void check_memory(const MemoryEstimate& estimate, const std::optional<MemoryLimit>& limit);

}  // namespace dlsim::sim
