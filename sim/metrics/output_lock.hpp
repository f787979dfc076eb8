// One writer per output folder (issue 22): `dlsim run` and `dlsim sweep` create their
// folder and hold an flock(2) on `<folder>/.dlsim.lock` for as long as they write into
// it. A second writer is refused at once with an InputError (exit 2): "output folder in
// use by pid N". The kernel drops the lock when its holder exits, however it exits, so a
// lock left by a killed run is never in the way (the empty file stays, unlocked; the
// holder's pid in the message comes from /proc/locks). Sweep shards share the sweep folder: each
// takes the folder's lock shared and its own shard lock exclusively, so two copies of
// one shard, or a whole sweep next to shards, are refused.
#pragma once

#include <filesystem>
#include <string>

namespace dlsim::sim {

class OutputLock {
 public:
  enum class Mode { exclusive, shared };

  /// Creates `folder` (and its parents) and locks `folder/<file>`. Throws InputError at
  /// `where` (`--out`, `output.dir`) when the folder cannot be created or is in use.
  OutputLock(const std::filesystem::path& folder, const std::string& where,
             Mode mode = Mode::exclusive, const std::string& file = ".dlsim.lock");
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

/// Refuses (InputError at `where`) an output folder that cannot be one: an empty name,
/// a NUL byte, an existing file that is not a folder (`/dev/full`), an ancestor that is
/// not a folder, or a name component longer than the file system allows (255 bytes).
void check_output_folder_name(const std::filesystem::path& folder, const std::string& where);

}  // namespace dlsim::sim
