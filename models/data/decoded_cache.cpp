#include "models/data/decoded_cache.hpp"

#include <fcntl.h>
#include <libdeflate.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <system_error>
#include <vector>

namespace dlsim::models {

namespace {

// A gzip file's trailer (RFC 1952): the CRC-32 and the size mod 2^32 of its (last)
// member's decompressed bytes, little-endian, in its last 8 bytes.
struct Trailer {
  std::uint32_t crc32 = 0;
  std::uint32_t size = 0;
};

std::optional<Trailer> trailer_of(std::span<const unsigned char> gzip) {
  constexpr std::size_t kSmallestMember = 18;  // a 10-byte header, an empty block, a trailer
  if (gzip.size() < kSmallestMember) return std::nullopt;
  const auto word = [&](std::size_t at) {
    std::uint32_t w = 0;
    for (std::size_t i = 0; i < 4; ++i) w |= std::uint32_t(gzip[at + i]) << (8 * i);
    return w;
  };
  return Trailer{word(gzip.size() - 8), word(gzip.size() - 4)};
}

// Whether `bytes` are what a member with this trailer decompresses to (an entry of 4 GiB or
// more, whose size the trailer can only give modulo 2^32, never is).
bool matches(std::span<const unsigned char> bytes, const Trailer& t) {
  return bytes.size() == t.size && libdeflate_crc32(0, bytes.data(), bytes.size()) == t.crc32;
}

// 64-bit FNV-1a: a stable name for a file's identity (not a defence against anyone: the
// entry is checked against the source's trailer when read).
std::uint64_t fnv1a(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325u;
  for (const char c : text) {
    h ^= std::uint8_t(c);
    h *= 0x100000001b3u;
  }
  return h;
}

// Whether `name` is an entry's (stem-<16 hex digits>, entry_of), not a temporary file's.
bool is_entry_name(std::string_view name) {
  constexpr std::size_t kHash = 16;
  if (name.size() < kHash + 1 || name[name.size() - kHash - 1] != '-') return false;
  return std::all_of(name.end() - kHash, name.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// Writes all of `bytes` to `fd`; false on an error.
bool write_all(int fd, std::span<const unsigned char> bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes = bytes.subspan(std::size_t(n));
  }
  return true;
}

}  // namespace

std::optional<std::filesystem::path> DecodedCache::folder_from_environment() {
  if (const char* dir = std::getenv("DLSIM_CACHE_DIR")) {
    if (*dir == '\0') return std::nullopt;  // turned off
    return std::filesystem::path(dir);
  }
  // XDG Base Directory: a relative XDG_CACHE_HOME is invalid and ignored.
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg == '/')
    return std::filesystem::path(xdg) / "dlsim";
  if (const char* home = std::getenv("HOME"); home && *home != '\0')
    return std::filesystem::path(home) / ".cache" / "dlsim";
  return std::nullopt;
}

DecodedCache::DecodedCache(std::optional<std::filesystem::path> folder, std::uintmax_t max_bytes)
    : folder_(std::move(folder)), max_bytes_(max_bytes) {}

std::optional<std::filesystem::path> DecodedCache::entry_of(const std::string& path) const {
  if (!folder_) return std::nullopt;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return std::nullopt;
  std::error_code ec;
  const std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  if (ec) return std::nullopt;
  const std::string identity =
      absolute.string() + '\0' + std::to_string(st.st_size) + '\0' + std::to_string(st.st_ino) +
      '\0' + std::to_string(st.st_dev) + '\0' + std::to_string(st.st_mtim.tv_sec) + '.' +
      std::to_string(st.st_mtim.tv_nsec) + '\0' + std::to_string(st.st_ctim.tv_sec) + '.' +
      std::to_string(st.st_ctim.tv_nsec);
  std::string stem = absolute.filename().string();
  if (stem.size() > 3 && stem.ends_with(".gz")) stem.resize(stem.size() - 3);
  char hash[17];
  std::snprintf(hash, sizeof hash, "%016llx", static_cast<unsigned long long>(fnv1a(identity)));
  return *folder_ / (stem + "-" + hash);
}

std::shared_ptr<const MappedFile> DecodedCache::find(const std::string& path,
                                                     std::span<const unsigned char> gzip) const {
  const std::optional<Trailer> trailer = trailer_of(gzip);
  const std::optional<std::filesystem::path> entry = entry_of(path);
  if (!trailer || !entry) return nullptr;
  // Only a regular file of the size the trailer declares is mapped (and read through):
  // not something else at the entry's name, nor a large file of another size. (Then
  // matches() checks the mapping, which a file replaced meanwhile may not be.)
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(*entry, ec);
  if (ec || size < kMinCachedBytes || size != trailer->size) return nullptr;
  std::shared_ptr<const MappedFile> mapped;
  try {
    mapped = std::make_shared<const MappedFile>(entry->string(), MappedFile::Pages::huge);
  } catch (const std::system_error&) {
    return nullptr;  // none (or unreadable): decompress
  }
  if (!matches(std::span<const unsigned char>(mapped->data(), mapped->size()), *trailer))
    return nullptr;
  ::utimensat(AT_FDCWD, entry->c_str(), nullptr, 0);  // used now (trim's order); may fail
  return mapped;
}

void DecodedCache::store(const std::string& path, std::span<const unsigned char> gzip,
                         std::span<const unsigned char> bytes) const {
  if (bytes.size() < kMinCachedBytes) return;
  const std::optional<Trailer> trailer = trailer_of(gzip);
  if (!trailer || bytes.size() != trailer->size) return;  // not one member, or >= 4 GiB
  const std::optional<std::filesystem::path> entry = entry_of(path);
  if (!entry) return;
  std::error_code ec;
  std::filesystem::create_directories(entry->parent_path(), ec);
  if (ec) return;
  std::string temporary = entry->string() + ".XXXXXX";
  const int fd = ::mkostemp(temporary.data(), O_CLOEXEC);
  if (fd < 0) return;
  const bool written = write_all(fd, bytes);
  const bool closed = ::close(fd) == 0;
  if (!written || !closed || std::rename(temporary.c_str(), entry->c_str()) != 0) {
    std::filesystem::remove(temporary, ec);
    return;
  }
  try {
    trim(*entry);
  } catch (const std::filesystem::filesystem_error&) {
    // A folder that cannot be listed (or changes while listed) stays as it is until next time.
  }
}

void DecodedCache::trim(const std::filesystem::path& kept) const {
  struct Entry {
    std::filesystem::file_time_type used;
    std::uintmax_t bytes;
    std::filesystem::path path;
  };
  std::vector<Entry> entries;
  std::uintmax_t total = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(*folder_, ec)) {
    // Entries only: another run's temporary file (entry.XXXXXX) may still be being written.
    if (!e.is_regular_file(ec) || !is_entry_name(e.path().filename().string())) continue;
    const std::uintmax_t bytes = e.file_size(ec);
    const auto used = e.last_write_time(ec);
    if (ec) continue;
    total += bytes;
    if (e.path() != kept) entries.push_back({used, bytes, e.path()});
  }
  std::sort(entries.begin(), entries.end(),
            [](const Entry& a, const Entry& b) { return a.used < b.used; });
  for (const Entry& e : entries) {
    if (total <= max_bytes_) break;
    if (std::filesystem::remove(e.path, ec)) total -= e.bytes;
  }
}

}  // namespace dlsim::models
