#include "sim/sweep/partition.hpp"

#include <charconv>

#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

bool parse_int(std::string_view text, int& out) {
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, out);
  return ec == std::errc() && ptr == end && !text.empty();
}

}  // namespace

Partition parse_shard(std::string_view text) {
  const std::size_t slash = text.find('/');
  Partition p;
  // Appended piece by piece: `"\"" + std::string(...)` trips GCC 12's bogus -Wrestrict
  // (GCC bug 105651).
  std::string shown = "\"";
  shown += text;
  shown += '"';
  if (slash == std::string_view::npos || !parse_int(text.substr(0, slash), p.index) ||
      !parse_int(text.substr(slash + 1), p.count))
    throw InputError("--shard", "expected i/K (shard i of K, 0 <= i < K), got " + shown);
  if (p.count < 1 || p.index < 0 || p.index >= p.count)
    throw InputError("--shard", "need 0 <= i < K, got " + shown);
  return p;
}

std::vector<std::size_t> owned_points(const Partition& part, std::size_t total) {
  std::vector<std::size_t> mine;
  for (std::size_t i = std::size_t(part.index); i < total; i += std::size_t(part.count))
    mine.push_back(i);
  return mine;
}

}  // namespace dlsim::sim
