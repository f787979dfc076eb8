// DecodedCache (models/data/decoded_cache.hpp): its folder from the environment; stored
// bytes found again, unchanged; entries that do not match the source's gzip trailer
// (corrupted, cut short or too long, or stored for an older version of the source) not
// used, nor a FIFO at an entry's name, which is not waited on either (nor by MappedFile);
// nothing stored when the cache is off, the bytes are few, the archive has several members
// or the folder cannot be written; beyond its size, the entries used least recently deleted.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "environment_helpers.hpp"
#include "gzip_helpers.hpp"
#include "models/data/decoded_cache.hpp"
#include "run_helpers.hpp"

using dlsim::models::DecodedCache;
using dlsim::test::read_bytes;
using dlsim::test::ScopedEnvironment;
using dlsim::test::write_gzip;

namespace {

// `size` bytes that gzip compresses, but not to nothing.
std::vector<unsigned char> some_bytes(std::size_t size, unsigned seed) {
  std::vector<unsigned char> b(size);
  unsigned x = seed;
  for (auto& v : b) {
    x = x * 1103515245u + 12345u;
    v = (unsigned char)((x >> 16) % 16);
  }
  return b;
}

bool same_bytes(const dlsim::models::MappedFile& m, const std::vector<unsigned char>& b) {
  return m.size() == b.size() && std::equal(b.begin(), b.end(), m.data());
}

std::size_t files_in(const std::filesystem::path& dir) {
  if (!std::filesystem::exists(dir)) return 0;
  return std::size_t(std::distance(std::filesystem::directory_iterator(dir), {}));
}

// Calls f() on a thread of its own and waits for it at most 30 s: a call that blocks (a
// FIFO opened for reading waits for a writer) fails the test instead of hanging it. Not a
// speed check: the calls guarded take microseconds. Empty when it did not return in time;
// rethrows what f threw.
template <class F>
std::optional<std::invoke_result_t<F>> unless_blocked(F f) {
  using Result = std::invoke_result_t<F>;
  auto promise = std::make_shared<std::promise<Result>>();
  std::future<Result> result = promise->get_future();
  std::thread([promise, f] {
    try {
      promise->set_value(f());
    } catch (...) {
      promise->set_exception(std::current_exception());
    }
  }).detach();  // if it blocks, the process's exit ends it
  if (result.wait_for(std::chrono::seconds(30)) != std::future_status::ready) return std::nullopt;
  return result.get();
}

}  // namespace

TEST_CASE("mapped file: a FIFO or a folder is refused at once, not waited on") {
  const auto dir = dlsim::test::fresh_dir("mapped-file");
  const auto fifo = (dir / "fifo").string();
  REQUIRE(::mkfifo(fifo.c_str(), 0600) == 0);
  const auto refused = [](std::string path) {
    return unless_blocked([path] {
      try {
        dlsim::models::MappedFile m(path);
        return std::string("mapped");
      } catch (const std::system_error& e) {
        return std::string(e.what());
      }
    });
  };
  const auto from_fifo = refused(fifo);
  REQUIRE(from_fifo);  // else open() waited for a writer
  CHECK(from_fifo->starts_with("not a regular file"));
  const auto from_folder = refused(dir.string());
  REQUIRE(from_folder);
  CHECK(from_folder->starts_with("not a regular file"));
  std::ofstream(dir / "file").put('x');
  CHECK(*refused((dir / "file").string()) == "mapped");
}

TEST_CASE(
    "decoded cache: the folder is DLSIM_CACHE_DIR, else XDG_CACHE_HOME/dlsim, else "
    "HOME/.cache/dlsim") {
  ScopedEnvironment dlsim("DLSIM_CACHE_DIR", "/a/b");
  ScopedEnvironment xdg("XDG_CACHE_HOME", "/x");
  ScopedEnvironment home("HOME", "/h");
  CHECK(DecodedCache::folder_from_environment() == std::filesystem::path("/a/b"));
  dlsim.set("");  // off
  CHECK_FALSE(DecodedCache::folder_from_environment());
  dlsim.set(std::nullopt);
  CHECK(DecodedCache::folder_from_environment() == std::filesystem::path("/x/dlsim"));
  xdg.set("relative");  // invalid by the XDG specification: ignored
  CHECK(DecodedCache::folder_from_environment() == std::filesystem::path("/h/.cache/dlsim"));
  xdg.set(std::nullopt);
  CHECK(DecodedCache::folder_from_environment() == std::filesystem::path("/h/.cache/dlsim"));
  home.set(std::nullopt);
  CHECK_FALSE(DecodedCache::folder_from_environment());
}

TEST_CASE("decoded cache: stored bytes come back only while they match the source's trailer") {
  const auto dir = dlsim::test::fresh_dir("decoded-cache");
  const auto source = (dir / "data.gz").string();
  const std::vector<unsigned char> bytes = some_bytes(DecodedCache::kMinCachedBytes + 7, 1);
  write_gzip(source, bytes);
  const std::vector<unsigned char> gzip = read_bytes(source);
  const DecodedCache cache(dir / "cache");

  CHECK(cache.find(source, gzip) == nullptr);  // nothing stored yet
  cache.store(source, gzip, bytes);
  const auto entry = cache.entry_of(source);
  REQUIRE(entry);
  CHECK(entry->parent_path() == dir / "cache");
  CHECK(entry->filename().string().starts_with("data-"));
  CHECK(files_in(dir / "cache") == 1);  // the entry, no temporary file left
  const auto found = cache.find(source, gzip);
  REQUIRE(found);
  CHECK(same_bytes(*found, bytes));

  SECTION("a corrupted entry is not used") {
    std::vector<unsigned char> corrupted = bytes;
    corrupted[bytes.size() / 2] ^= 1;
    std::ofstream(*entry, std::ios::binary)
        .write(reinterpret_cast<const char*>(corrupted.data()), std::streamsize(corrupted.size()));
    CHECK(cache.find(source, gzip) == nullptr);
    cache.store(source, gzip, bytes);  // replaced
    const auto again = cache.find(source, gzip);
    REQUIRE(again);
    CHECK(same_bytes(*again, bytes));
  }
  SECTION("an entry cut short is not used") {
    std::filesystem::resize_file(*entry, bytes.size() - 1);
    CHECK(cache.find(source, gzip) == nullptr);
  }
  SECTION("an entry longer than the trailer says is not used") {
    std::filesystem::resize_file(*entry, bytes.size() + 4096);
    CHECK(cache.find(source, gzip) == nullptr);
  }
  SECTION("a FIFO at the entry's name is not used nor waited on, and is replaced") {
    std::filesystem::remove(*entry);
    REQUIRE(::mkfifo(entry->c_str(), 0600) == 0);
    // Copies: a call that blocks outlives this scope.
    const auto none =
        unless_blocked([cache, source, gzip] { return cache.find(source, gzip) == nullptr; });
    REQUIRE(none);  // else find() waited for a writer
    CHECK(*none);
    cache.store(source, gzip, bytes);
    CHECK(std::filesystem::is_regular_file(*entry));
    const auto again = cache.find(source, gzip);
    REQUIRE(again);
    CHECK(same_bytes(*again, bytes));
  }
  SECTION("a source rewritten with other bytes of the same size does not meet the old entry") {
    const std::vector<unsigned char> other = some_bytes(bytes.size(), 2);
    write_gzip(source, other);
    const std::vector<unsigned char> other_gzip = read_bytes(source);
    CHECK(cache.find(source, other_gzip) == nullptr);
    cache.store(source, other_gzip, other);
    const auto found_other = cache.find(source, other_gzip);
    REQUIRE(found_other);
    CHECK(same_bytes(*found_other, other));
  }
}

TEST_CASE(
    "decoded cache: nothing stored when off, for few bytes, for several members, or in a "
    "folder that cannot be written") {
  const auto dir = dlsim::test::fresh_dir("decoded-cache-none");
  const auto source = (dir / "data.gz").string();
  const std::vector<unsigned char> bytes = some_bytes(DecodedCache::kMinCachedBytes, 3);
  write_gzip(source, bytes);
  const std::vector<unsigned char> gzip = read_bytes(source);

  const DecodedCache off(std::nullopt);
  off.store(source, gzip, bytes);
  CHECK_FALSE(off.entry_of(source));
  CHECK(off.find(source, gzip) == nullptr);

  const DecodedCache cache(dir / "cache");
  const std::vector<unsigned char> few(bytes.begin(), bytes.end() - 1);
  const auto few_source = (dir / "few.gz").string();
  write_gzip(few_source, few);
  cache.store(few_source, read_bytes(few_source), few);
  CHECK(files_in(dir / "cache") == 0);

  // Two members: the trailer is the second's, which does not describe all the bytes.
  const auto half = (dir / "half.gz").string();
  const std::vector<unsigned char> first(bytes.begin(), bytes.begin() + 1000);
  write_gzip(half, first);
  std::vector<unsigned char> two = read_bytes(half);
  two.insert(two.end(), gzip.begin(), gzip.end());
  std::vector<unsigned char> joined = first;
  joined.insert(joined.end(), bytes.begin(), bytes.end());
  const auto two_source = (dir / "two.gz").string();
  std::ofstream(two_source, std::ios::binary)
      .write(reinterpret_cast<const char*>(two.data()), std::streamsize(two.size()));
  cache.store(two_source, two, joined);
  CHECK(files_in(dir / "cache") == 0);

  std::ofstream(dir / "a-file").put('x');  // the folder would have to be inside a file
  const DecodedCache unwritable(dir / "a-file" / "cache");
  unwritable.store(source, gzip, bytes);  // no exception, nothing written
  CHECK(unwritable.find(source, gzip) == nullptr);
}

TEST_CASE("decoded cache: beyond its size, the entries used least recently go") {
  // Room for two entries and a half: storing a third deletes the one used least recently,
  // where a hit counts as a use; another run's temporary file is left alone.
  const auto dir = dlsim::test::fresh_dir("decoded-cache-trim");
  const std::size_t size = DecodedCache::kMinCachedBytes;
  const DecodedCache cache(dir / "cache", 5 * size / 2);
  std::vector<std::string> sources;
  std::vector<std::vector<unsigned char>> bytes, archives;
  for (unsigned k = 0; k < 3; ++k) {
    sources.push_back((dir / ("data" + std::to_string(k) + ".gz")).string());
    bytes.push_back(some_bytes(size, 10 + k));
    write_gzip(sources[k], bytes[k]);
    archives.push_back(read_bytes(sources[k]));
  }
  const auto age = [&](unsigned k, int seconds_ago) {
    std::filesystem::last_write_time(
        *cache.entry_of(sources[k]),
        std::filesystem::file_time_type::clock::now() - std::chrono::seconds(seconds_ago));
  };
  cache.store(sources[0], archives[0], bytes[0]);
  age(0, 300);
  cache.store(sources[1], archives[1], bytes[1]);
  age(1, 200);
  const std::string temporary = cache.entry_of(sources[0])->string() + ".Ab12Cd";
  std::ofstream(temporary).put('x');  // being written (and oldest of all)
  std::filesystem::last_write_time(
      temporary, std::filesystem::file_time_type::clock::now() - std::chrono::seconds(900));
  REQUIRE(cache.find(sources[0], archives[0]));  // data0 is now the one used last
  cache.store(sources[2], archives[2], bytes[2]);
  CHECK(std::filesystem::exists(*cache.entry_of(sources[0])));
  CHECK_FALSE(std::filesystem::exists(*cache.entry_of(sources[1])));  // least recently used
  CHECK(std::filesystem::exists(*cache.entry_of(sources[2])));
  CHECK(std::filesystem::exists(temporary));
  CHECK(files_in(dir / "cache") == 3);
}
