#include "sim/metrics/npy_file.hpp"

#include <bit>
#include <cstring>

#include "sim/metrics/atomic_file.hpp"

namespace dlsim::sim {

static_assert(std::endian::native == std::endian::little,
              "npy_bytes writes the values as they are in memory, declared '<f8'");

std::string npy_bytes(std::span<const double> values) {
  std::string header = "{'descr': '<f8', 'fortran_order': False, 'shape': (" +
                       std::to_string(values.size()) + ",), }";
  // magic (6) + version (2) + header length (2) + header, padded with spaces and ended
  // by '\n' so that the data starts at a multiple of 64 bytes.
  const std::size_t preamble = 10;
  const std::size_t total = (preamble + header.size() + 1 + 63) / 64 * 64;
  header.append(total - preamble - header.size() - 1, ' ');
  header.push_back('\n');

  std::string bytes("\x93NUMPY\x01\x00", 8);
  bytes.push_back(char(header.size() & 0xff));
  bytes.push_back(char(header.size() >> 8));
  bytes += header;
  const std::size_t start = bytes.size();
  bytes.resize(start + values.size() * sizeof(double));
  if (!values.empty()) std::memcpy(bytes.data() + start, values.data(), values.size_bytes());
  return bytes;
}

void write_npy(const std::filesystem::path& file, std::span<const double> values) {
  write_file_atomically(file, npy_bytes(values));
}

}  // namespace dlsim::sim
