// Shared by the fuzz targets: writing the fuzzer's bytes to a scratch file (the data
// loaders read paths), and aborting on any exception that is not the expected one.
#pragma once

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

namespace dlsim::fuzz {

/// A per-process scratch directory under the system temp dir, created once.
inline const std::filesystem::path& scratch_dir() {
  static const std::filesystem::path dir = [] {
    auto d = std::filesystem::temp_directory_path() / ("dlsim-fuzz-" + std::to_string(getpid()));
    std::filesystem::create_directories(d);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(
          std::filesystem::temp_directory_path() / ("dlsim-fuzz-" + std::to_string(getpid())), ec);
    });
    return d;
  }();
  return dir;
}

inline std::string write_scratch(const std::string& name, const std::uint8_t* data,
                                 std::size_t size) {
  const auto path = scratch_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(data), std::streamsize(size));
  return path.string();
}

/// An exception the target must never let escape: print it and abort (a finding).
[[noreturn]] inline void unexpected(const char* what) {
  std::fprintf(stderr, "fuzz: unexpected exception: %s\n", what);
  std::abort();
}

}  // namespace dlsim::fuzz
