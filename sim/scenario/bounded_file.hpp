// Reading an input file whose size and kind are bounded (issue 22): `dlsim run
// /dev/zero` must not read forever, nor a 10 GB file be read into memory as a scenario.
#pragma once

#include <cstddef>
#include <string>

namespace dlsim::sim {

/// The whole content of `path`, which must be a regular file or a pipe (so that
/// `dlsim run <(jq ... )` works) of at most `limit` bytes. Throws InputError(path, ...)
/// for a directory, a device or socket, a file too large ("what" names the kind of
/// file in the message: "a scenario is at most 64 MiB"), or a read error.
std::string read_bounded_text(const std::string& path, std::size_t limit, const std::string& what);

}  // namespace dlsim::sim
