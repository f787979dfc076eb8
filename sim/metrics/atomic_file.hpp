// Writing a file so that readers only ever see the old or the new content, never a
// torn one, and a killed writer leaves no temporary file behind: the content is written
// into an unnamed file in the target's folder (O_TMPFILE), given a per-process
// temporary name FILE.tmp.<pid> only once complete, and renamed over FILE (rename is
// atomic on POSIX). File systems without O_TMPFILE get the named temporary from the
// start. `durable` also fsyncs the file before the rename and the folder after it, so
// the new content survives a power cut too (a few milliseconds per call). Every
// write, sync, close and rename is checked.
#pragma once

#include <filesystem>
#include <string>

namespace dlsim::sim {

/// Replaces `file` by `text` atomically; throws std::runtime_error on failure.
void write_file_atomically(const std::filesystem::path& file, const std::string& text,
                           bool durable = true);

}  // namespace dlsim::sim
