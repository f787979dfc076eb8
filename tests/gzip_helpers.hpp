// Writing gzip files for the data readers' tests (zlib: the tests link ZLIB::ZLIB).
#pragma once

#include <zlib.h>
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

namespace dlsim::test {

/// `bytes` as a one-member gzip file at `path`.
inline void write_gzip(const std::filesystem::path& path, const std::vector<unsigned char>& bytes) {
  gzFile f = gzopen(path.string().c_str(), "wb");
  REQUIRE(f);
  if (!bytes.empty()) gzwrite(f, bytes.data(), unsigned(bytes.size()));
  gzclose(f);
}

/// The bytes of the file at `path`.
inline std::vector<unsigned char> read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<unsigned char>((std::istreambuf_iterator<char>(in)), {});
}

}  // namespace dlsim::test
