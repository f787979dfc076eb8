// A vector as a NumPy .npy file (format version 1.0: the magic "\x93NUMPY", a header
// dict padded to a multiple of 64 bytes, then the raw little-endian values), so
// `numpy.load(path)` reads the model back exactly.
#pragma once

#include <filesystem>
#include <span>
#include <string>

namespace dlsim::sim {

/// The bytes of a one-dimensional float64 .npy file holding `values`.
std::string npy_bytes(std::span<const double> values);

/// Writes npy_bytes(values) to `file` atomically (atomic_file.hpp); throws
/// std::runtime_error on failure.
void write_npy(const std::filesystem::path& file, std::span<const double> values);

}  // namespace dlsim::sim
