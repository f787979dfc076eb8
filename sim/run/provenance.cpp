#include "sim/run/provenance.hpp"

#include <unistd.h>

#include <array>
#include <ctime>

#include "dlsim_git_commit.hpp"  // generated at build time (cmake/git_commit.cmake)
#include "models/cpu/instruction_set.hpp"

namespace dlsim::sim {
namespace {

std::string host_name() {
  std::array<char, 256> name{};
  if (::gethostname(name.data(), name.size() - 1) != 0) return "";
  return name.data();
}

// `t` as ISO 8601 UTC to the second.
std::string utc_timestamp(std::chrono::system_clock::time_point t) {
  const std::time_t seconds = std::chrono::system_clock::to_time_t(t);
  std::tm utc{};
  ::gmtime_r(&seconds, &utc);
  std::array<char, 32> text{};
  std::strftime(text.data(), text.size(), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text.data();
}

}  // namespace

nlohmann::json provenance_json(const RunProvenance& p) {
  const std::string commit = DLSIM_GIT_COMMIT;
  const std::string host = host_name();
  return {{"argv", p.argv},
          {"host", host.empty() ? nlohmann::json(nullptr) : nlohmann::json(host)},
          {"started_utc", utc_timestamp(p.started)},
          {"finished_utc", utc_timestamp(p.finished)},
          {"git_commit", commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(commit)},
          {"git_dirty",
           commit.empty() ? nlohmann::json(nullptr) : nlohmann::json(DLSIM_GIT_DIRTY != 0)},
          {"dlsim_version", DLSIM_VERSION},
          {"threads", p.threads},
          {"instruction_set", models::instruction_set_name(models::best_instruction_set())}};
}

}  // namespace dlsim::sim
