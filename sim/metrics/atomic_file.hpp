// Writing a file so that readers only ever see the old or the new content, never a
// torn one: write FILE.tmp.<pid>, rename it over FILE (rename is atomic on POSIX).
// That already survives a killed process; `durable` also fsyncs the file before the
// rename and the folder after it, so the new content survives a power cut too (at a
// few milliseconds per call).
#pragma once

#include <filesystem>
#include <string>

namespace dlsim::sim {

/// Replaces `file` by `text` atomically; throws std::runtime_error on failure.
void write_file_atomically(const std::filesystem::path& file, const std::string& text,
                           bool durable = true);

}  // namespace dlsim::sim
