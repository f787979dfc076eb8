// Test helper: unique paths under the temp directory that the test process removes when
// it exits, so thousands of ctest runs leave nothing behind in /tmp.
#pragma once

#include <filesystem>
#include <mutex>
#include <random>
#include <string>
#include <system_error>
#include <vector>

namespace dlsim::test {

namespace detail {
// Every path handed out; removed (recursively) by the destructor at process exit.
struct ScratchRegistry {
  std::mutex mutex;
  std::mt19937_64 rng{std::random_device{}()};
  std::vector<std::filesystem::path> paths;
  ~ScratchRegistry() {
    std::error_code ignored;  // a test may have removed its path already
    for (const auto& path : paths) std::filesystem::remove_all(path, ignored);
  }
};
inline ScratchRegistry& scratch_registry() {
  static ScratchRegistry registry;
  return registry;
}
}  // namespace detail

// A new path `<temp>/dlsim-test-<random>-<stem>` (not created), removed at process exit.
// It ends with `stem`, so a file keeps its name's tail (errors quote it).
inline std::filesystem::path scratch_path(const std::string& stem) {
  auto& registry = detail::scratch_registry();
  const std::lock_guard lock(registry.mutex);
  auto path = std::filesystem::temp_directory_path() /
              ("dlsim-test-" + std::to_string(registry.rng()) + "-" + stem);
  registry.paths.push_back(path);
  return path;
}

}  // namespace dlsim::test
