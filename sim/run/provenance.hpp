// Provenance of a run folder (summary.json "run"): which binary, command line, host and
// times produced it, so a result can be traced back and rerun.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlsim::sim {

struct RunProvenance {
  std::vector<std::string> argv;  // the command line as typed (empty for library callers)
  std::chrono::system_clock::time_point started;
  std::chrono::system_clock::time_point finished;
  int threads = 1;  // --threads, resolved
};

/// {argv, host, started_utc, finished_utc, git_commit, git_dirty, dlsim_version,
/// threads, instruction_set}. Times are ISO 8601 UTC to the second
/// ("2026-12-02T05:30:12Z"); git_commit is the commit the binary was built from (null when
/// built outside a git checkout) and git_dirty whether tracked files differed from it then;
/// instruction_set the widest set the run-time kernels used ("baseline", "avx2", "avx512":
/// models/cpu/instruction_set.hpp), which changes speed, never results.
nlohmann::json provenance_json(const RunProvenance& p);

}  // namespace dlsim::sim
