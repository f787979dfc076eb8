// A cache of decompressed data files, so that a data set shipped gzip-compressed is
// decompressed once per machine instead of once per run. Fashion-MNIST's training images
// take about 0.1 s to decompress (26 MB of gzip, 47 MB of pixels), a sixth of benchmark
// (f); with the cache a whole run of 0.0001 epoch takes 0.03 s, of which the entry's CRC-32
// is 3.3 ms (README "Data cache").
//
// Where: $DLSIM_CACHE_DIR, else $XDG_CACHE_HOME/dlsim, else $HOME/.cache/dlsim, as
// command-line tools on Linux keep theirs (XDG Base Directory). DLSIM_CACHE_DIR set to the
// empty string turns the cache off, and so does having none of the three.
// What: one file per source file whose bytes are at least kMinCachedBytes (small files
// decompress in no time), named after the source's identity: its absolute path, size,
// inode, device and modification and change times, so a rewritten or replaced source
// never meets an old entry under the same name. Checked on every read: the entry must have
// the size and the CRC-32 that the source's gzip trailer declares (RFC 1952), else it is
// not used (and the next store replaces it).
// How big it grows: at most kMaxCacheBytes (ccache's rule): after a store, the entries
// used least recently (a hit marks its entry used) are deleted until the rest fit; a run
// that still maps one keeps its pages until it ends.
// How it is written: into a temporary file in the same folder, renamed into place when
// whole, so runs on the same machine see a whole entry or none. A folder that cannot be
// created or written is skipped without a word: the cache only saves time, and the run's
// results are the same bytes either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "models/data/mapped_file.hpp"

namespace dlsim::models {

class DecodedCache {
 public:
  /// Smaller decompressed files are not cached.
  static constexpr std::size_t kMinCachedBytes = std::size_t(1) << 20;
  /// The folder's entries together stay within this (about 39 copies of Fashion-MNIST's 55 MB).
  static constexpr std::uintmax_t kMaxCacheBytes = std::uintmax_t(2) << 30;

  /// The folder the environment names (see above); nullopt when the cache is off.
  static std::optional<std::filesystem::path> folder_from_environment();

  /// A cache in `folder`, or one that holds nothing when nullopt, of at most `max_bytes`.
  explicit DecodedCache(std::optional<std::filesystem::path> folder = folder_from_environment(),
                        std::uintmax_t max_bytes = kMaxCacheBytes);

  /// The decompressed bytes of the one-member gzip file at `path`, whose contents are
  /// `gzip`, mapped read-only from the cache (and the entry marked used now); null when it
  /// holds no valid entry for them.
  std::shared_ptr<const MappedFile> find(const std::string& path,
                                         std::span<const unsigned char> gzip) const;

  /// Keeps `bytes`, what the one-member gzip file at `path` (contents `gzip`)
  /// decompresses to, for later runs, then deletes the entries used least recently while
  /// the folder's entries exceed the cache's size. Does nothing when the cache is off, when
  /// there are fewer than kMinCachedBytes bytes, or when the folder cannot be written.
  void store(const std::string& path, std::span<const unsigned char> gzip,
             std::span<const unsigned char> bytes) const;

  /// Where the entry of the file at `path` is (whether or not it exists); nullopt when the
  /// cache is off or the file cannot be examined.
  std::optional<std::filesystem::path> entry_of(const std::string& path) const;

 private:
  // Deletes the entries used least recently, except `kept`, while the rest exceed max_bytes_.
  void trim(const std::filesystem::path& kept) const;

  std::optional<std::filesystem::path> folder_;
  std::uintmax_t max_bytes_;
};

}  // namespace dlsim::models
