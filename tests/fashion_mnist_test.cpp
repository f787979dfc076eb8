// Fashion-MNIST loader: the real files of the Debian package (skipped with a warning
// when they are not installed), and malformed IDX/gzip files refused naming the file.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "environment_helpers.hpp"
#include "gzip_helpers.hpp"
#include "models/data/decoded_cache.hpp"
#include "models/data/sources.hpp"
#include "run_helpers.hpp"

using namespace dlsim::models;
using dlsim::test::read_bytes;
using dlsim::test::write_gzip;

namespace {

const std::string kDebianDir = "/usr/share/datasets/fashion-mnist";

std::vector<unsigned char> header(std::vector<std::uint32_t> words) {
  std::vector<unsigned char> b;
  for (auto w : words)
    for (int shift = 24; shift >= 0; shift -= 8) b.push_back((unsigned char)(w >> shift));
  return b;
}

// A tiny valid data set: `n` images of 2×2 pixels, in `dir`, train and test alike.
void write_tiny(const std::filesystem::path& dir, std::uint32_t n, unsigned char label) {
  for (const char* prefix : {"train", "t10k"}) {
    auto images = header({0x803, n, 2, 2});
    for (std::uint32_t i = 0; i < 4 * n; ++i) images.push_back((unsigned char)(i % 256));
    auto labels = header({0x801, n});
    for (std::uint32_t i = 0; i < n; ++i) labels.push_back(label);
    write_gzip(dir / (std::string(prefix) + "-images-idx3-ubyte.gz"), images);
    write_gzip(dir / (std::string(prefix) + "-labels-idx1-ubyte.gz"), labels);
  }
}

// The file mapped at address `p` of this process (/proc/self/maps), empty if none (the
// heap, an anonymous mapping).
std::string file_mapped_at(const void* p) {
  std::ifstream maps("/proc/self/maps");
  const auto address = reinterpret_cast<std::uintptr_t>(p);
  for (std::string line; std::getline(maps, line);) {
    std::istringstream fields(line);
    std::string range, perms, offset, device, inode, path;
    fields >> range >> perms >> offset >> device >> inode >> path;
    const std::size_t dash = range.find('-');
    const std::uintptr_t begin = std::stoull(range.substr(0, dash), nullptr, 16);
    const std::uintptr_t end = std::stoull(range.substr(dash + 1), nullptr, 16);
    if (begin <= address && address < end) return path.starts_with('/') ? path : "";
  }
  return "";
}

std::string error_of(const std::filesystem::path& dir) {
  try {
    load_fashion_mnist(dir.string());
  } catch (const DataError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("fashion-mnist: the Debian files load as 60k/10k images in [0,1]") {
  if (!std::filesystem::exists(kDebianDir + "/train-images-idx3-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const DataSplit split = load_fashion_mnist(kDebianDir);
  REQUIRE(split.train.size() == 60000);
  REQUIRE(split.train.feature_count() == 784);
  REQUIRE(split.test);
  REQUIRE(split.test->size() == 10000);
  CHECK(split.train.classes == 10);
  CHECK(split.train.features.view().minCoeff() == 0.0);
  CHECK(split.train.features.view().maxCoeff() == 1.0);
  // The official split is balanced: 6000 training and 1000 test images per class.
  for (int c = 0; c < 10; ++c) {
    CHECK((split.train.labels.array() == c).count() == 6000);
    CHECK((split.test->labels.array() == c).count() == 1000);
  }
  // Every pixel is a multiple of 1/255.
  const Eigen::ArrayXXd scaled = split.test->features.view().array() * 255.0;
  CHECK((scaled - scaled.round()).abs().maxCoeff() < 1e-9);
}

// The AdaGossip code's input transform, Normalize((0.5,), (0.5,)): pixels in [0, 1] become
// 2x - 1 in [-1, 1], in both splits, through the scenario path. One map for the one channel:
// the data stays byte codes (the table mapped). Without given means the statistics are
// computed, on doubles.
TEST_CASE("fashion-mnist: normalize channel with mean 0.5 and std 0.5 gives [-1, 1]") {
  if (!std::filesystem::exists(kDebianDir + "/train-images-idx3-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const nlohmann::json scenario = {{"workers", 2},
                                   {"data",
                                    {{"source", "fashion-mnist"},
                                     {"normalize", "channel"},
                                     {"channel_mean", {0.5}},
                                     {"channel_std", {0.5}}}},
                                   {"model", {{"kind", "softmax"}}}};
  const auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(scenario));
  CHECK(prepared.data->train.features.is_coded());
  CHECK(prepared.data->test->features.is_coded());
  const auto doubles = [](FeatureMatrix f) {
    f.decode_codes();
    return Matrix(f.view());
  };
  const Matrix train = doubles(prepared.data->train.features);
  const DataSplit raw = load_fashion_mnist(kDebianDir);
  CHECK(train == (raw.train.features.view().array() * 2 - 1).matrix());
  CHECK(doubles(prepared.data->test->features) ==
        (raw.test->features.view().array() * 2 - 1).matrix());
  CHECK(train.minCoeff() == -1.0);
  CHECK(train.maxCoeff() == 1.0);

  nlohmann::json computed = scenario;
  computed["data"].erase("channel_mean");
  computed["data"].erase("channel_std");
  const auto stats = dlsim::sim::prepare(dlsim::sim::load_scenario(computed));
  CHECK_FALSE(stats.data->train.features.is_coded());
  CHECK(std::abs(stats.data->train.features.view().mean()) < 1e-9);
}

TEST_CASE("fashion-mnist: a tiny valid file pair decodes byte for byte") {
  const auto dir = dlsim::test::fresh_dir("fmnist");
  write_tiny(dir, 3, 7);
  const DataSplit split = load_fashion_mnist(dir.string());
  REQUIRE(split.train.size() == 3);
  REQUIRE(split.train.feature_count() == 4);
  CHECK(split.train.features(1, 2) == Approx(6.0 / 255.0));
  CHECK(split.train.labels(2) == 7.0);
}

TEST_CASE("fashion-mnist: malformed files are refused naming the file") {
  const auto dir = dlsim::test::fresh_dir("fmnist-bad");
  write_tiny(dir, 3, 1);
  const auto labels = dir / "train-labels-idx1-ubyte.gz";
  const auto images = dir / "train-images-idx3-ubyte.gz";

  write_gzip(labels, header({0x802, 3, 0, 0}));  // wrong magic
  CHECK_THAT(error_of(dir),
             Catch::Contains(labels.string() + ": ") && Catch::Contains("bad magic number"));

  auto short_labels = header({0x801, 3});
  short_labels.push_back(1);  // 1 of 3 labels
  write_gzip(labels, short_labels);
  CHECK_THAT(error_of(dir), Catch::Contains("expected 3 data bytes after the header, found 1"));

  auto bad_label = header({0x801, 3});
  for (int i = 0; i < 3; ++i) bad_label.push_back(12);
  write_gzip(labels, bad_label);
  CHECK_THAT(error_of(dir), Catch::Contains("label 12 outside 0..9"));

  write_tiny(dir, 3, 1);
  auto four_labels = header({0x801, 4});
  for (int i = 0; i < 4; ++i) four_labels.push_back(1);
  write_gzip(labels, four_labels);
  CHECK_THAT(error_of(dir), Catch::Contains("4 labels for 3 images"));

  write_tiny(dir, 3, 1);
  write_gzip(images, {0, 0});
  CHECK_THAT(error_of(dir), Catch::Contains(images.string() + ": truncated IDX header"));

  std::filesystem::remove(images);
  CHECK_THAT(error_of(dir), Catch::Contains(images.string() + ": cannot read file: no such file"));

  // Something else at the file's name: refused as such, and a FIFO not waited on.
  std::filesystem::create_directory(images);
  CHECK_THAT(error_of(dir),
             Catch::Contains(images.string() + ": cannot read file: not a regular file"));
  std::filesystem::remove(images);
  REQUIRE(::mkfifo(images.c_str(), 0600) == 0);
  CHECK_THAT(error_of(dir),
             Catch::Contains(images.string() + ": cannot read file: not a regular file"));
}

// Storage::float32 writes floats straight from the bytes (no float64 copy): each of the
// 256 pixel values must be the float FeatureMatrix::to_float32 makes of the double p/255.
TEST_CASE("fashion-mnist: float32 storage loaded directly equals float64 narrowed") {
  const auto dir = dlsim::test::fresh_dir("fmnist-float32");
  write_tiny(dir, 64, 3);  // 64 images of 4 pixels: the bytes 0..255 once each
  DataSplit narrowed = load_fashion_mnist(dir.string());
  narrowed.train.features.to_float32();
  const DataSplit direct = load_fashion_mnist(dir.string(), Storage::float32);
  REQUIRE(direct.train.features.is_float32());
  REQUIRE(direct.test->features.is_float32());
  CHECK(direct.train.features.view_float32() == narrowed.train.features.view_float32());
  CHECK(direct.train.features(63, 3) == double(float(255.0 / 255.0)));
  CHECK(direct.train.features(0, 1) == double(float(1.0 / 255.0)));
  CHECK(direct.train.labels == narrowed.train.labels);
}

// read_gzip decompresses with libdeflate, member by member, into an output that starts at
// the size the file's last four bytes declare (here: the small last member's) and grows;
// a plain file is read as it is, as zlib's gzread reads it; trailing bytes that are not a
// gzip member are ignored.
TEST_CASE("fashion-mnist: several gzip members, a plain file, trailing bytes") {
  const auto dir = dlsim::test::fresh_dir("fmnist-members");
  write_tiny(dir, 20000, 2);  // 80,000 pixels: the reference, one member per file
  const DataSplit reference = load_fashion_mnist(dir.string());
  const auto images = dir / "train-images-idx3-ubyte.gz";
  const auto scratch = dir / "part.gz";
  auto plain = header({0x803, 20000, 2, 2});
  for (std::uint32_t i = 0; i < 4 * 20000; ++i) plain.push_back((unsigned char)(i % 256));

  // Three members: 16 + 70,000 bytes, 9,900 bytes, the last 100 bytes. ISIZE says 100:
  // the output (64 KiB at least) has to grow.
  std::vector<unsigned char> joined;
  for (const auto& [from, to] : {std::pair{0, 70016}, {70016, 79916}, {79916, 80016}}) {
    write_gzip(scratch, {plain.begin() + from, plain.begin() + to});
    const auto member = read_bytes(scratch);
    joined.insert(joined.end(), member.begin(), member.end());
  }
  std::ofstream(images, std::ios::binary)
      .write(reinterpret_cast<const char*>(joined.data()), std::streamsize(joined.size()));
  CHECK(load_fashion_mnist(dir.string()).train.features.view() == reference.train.features.view());

  joined.insert(joined.end(), {'j', 'u', 'n', 'k'});  // not a member: ignored
  std::ofstream(images, std::ios::binary)
      .write(reinterpret_cast<const char*>(joined.data()), std::streamsize(joined.size()));
  CHECK(load_fashion_mnist(dir.string()).train.features.view() == reference.train.features.view());

  std::ofstream(images, std::ios::binary)  // uncompressed
      .write(reinterpret_cast<const char*>(plain.data()), std::streamsize(plain.size()));
  CHECK(load_fashion_mnist(dir.string()).train.features.view() == reference.train.features.view());

  joined.resize(joined.size() - 4 - 10);  // the last member cut short
  std::ofstream(images, std::ios::binary)
      .write(reinterpret_cast<const char*>(joined.data()), std::streamsize(joined.size()));
  CHECK(error_of(dir).find("corrupt gzip data") != std::string::npos);
}

// Through prepare(): with nothing editing the values, fashion-mnist stores them as it
// loads them (byte codes for float64, floats for float32), and the memory estimate counts
// 1 or 4 bytes a feature and no float64 copy while loading; a normalized set is loaded
// in doubles as before. 64 training and 64 test images of 4 pixels, labels 8 bytes:
//   coded:   data 128 x (4 x 1 + 8) + 64 shard indices x 8 = 2,048; loading 0
//   float32: data 128 x (4 x 4 + 8) + 512 = 3,584; loading 0
//   minmax:  data 128 x (4 x 8 + 8) + 512 = 5,632; loading 128 x 5 values x 8 = 5,120
TEST_CASE("fashion-mnist: stored as loaded, and the memory estimate says so") {
  const auto dir = dlsim::test::fresh_dir("fmnist-estimate");
  write_tiny(dir, 64, 6);
  nlohmann::json doc = {{"workers", 2},
                        {"data", {{"source", "fashion-mnist"}, {"path", dir.string()}}},
                        {"model", {{"kind", "softmax"}}},
                        {"stop", {{"iterations", 2}}}};
  const auto piece = [](const dlsim::sim::PreparedRun& p, const std::string& name) {
    for (const auto& q : p.memory.pieces)
      if (q.name == name) return q.bytes;
    FAIL("no piece " << name);
    return 0.0;
  };
  const auto coded = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  CHECK(coded.data->train.features.is_coded());
  CHECK(coded.data->test->features.is_coded());
  CHECK(piece(coded, "data") == Approx(2048));
  CHECK(piece(coded, "loading") == 0);
  doc["data"]["storage"] = "float32";
  const auto floats = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  CHECK(floats.data->train.features.is_float32());
  CHECK(piece(floats, "data") == Approx(3584));
  CHECK(piece(floats, "loading") == 0);
  doc["data"]["storage"] = "float64";
  doc["data"]["normalize"] = "minmax";
  const auto edited = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  CHECK_FALSE(edited.data->train.features.is_coded());
  CHECK(piece(edited, "data") == Approx(5632));
  CHECK(piece(edited, "loading") == Approx(5120));
}

// The images' decompressed bytes go to the cache (models/data/decoded_cache.hpp) when
// there are at least a MiB of them, and the next load maps them from there: the same
// features either way, and a corrupted entry is decompressed again and replaced.
TEST_CASE("fashion-mnist: decompressed images are cached, and the cache changes nothing") {
  const auto dir = dlsim::test::fresh_dir("fmnist-cache");
  constexpr std::uint32_t kImages = 300'000;  // 1.2 MB of pixels: cached; 300 kB of labels: not
  write_tiny(dir, kImages, 4);
  const auto folder = dir / "cache";
  dlsim::test::ScopedEnvironment cache_dir("DLSIM_CACHE_DIR", folder.string());
  const DecodedCache cache(folder);
  const auto train_entry = cache.entry_of((dir / "train-images-idx3-ubyte.gz").string());
  const auto test_entry = cache.entry_of((dir / "t10k-images-idx3-ubyte.gz").string());
  REQUIRE(train_entry);
  REQUIRE(test_entry);
  const auto codes = [](const DataSplit& s) {
    const auto* first = static_cast<const unsigned char*>(s.train.features.storage_data());
    return std::vector<unsigned char>(first, first + s.train.size() * s.train.feature_count());
  };

  const DataSplit decompressed = load_fashion_mnist(dir.string(), Storage::float64, true);
  REQUIRE(decompressed.train.features.is_coded());
  CHECK(std::filesystem::file_size(*train_entry) == 16 + 4 * kImages);  // header and pixels
  CHECK(std::filesystem::file_size(*test_entry) == 16 + 4 * kImages);
  std::size_t entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(folder)) entries += e.is_regular_file();
  CHECK(entries == 2);  // no labels' entry, no temporary file

  const DataSplit cached = load_fashion_mnist(dir.string(), Storage::float64, true);
  CHECK(file_mapped_at(cached.train.features.storage_data()) == train_entry->string());
  CHECK(file_mapped_at(cached.test->features.storage_data()) == test_entry->string());
  CHECK(file_mapped_at(decompressed.train.features.storage_data()).empty());  // our own memory
  CHECK(codes(cached) == codes(decompressed));
  CHECK(cached.train.labels == decompressed.train.labels);
  CHECK(cached.test->features(kImages - 1, 3) == decompressed.test->features(kImages - 1, 3));
  const DataSplit doubles = load_fashion_mnist(dir.string());  // float64 values from the entry
  CHECK(doubles.train.features(12345, 2) == double((12345 * 4 + 2) % 256) / 255.0);

  std::vector<unsigned char> entry = read_bytes(*train_entry);
  entry[16 + 7] ^= 0x40;  // a pixel of the first image
  std::ofstream(*train_entry, std::ios::binary)
      .write(reinterpret_cast<const char*>(entry.data()), std::streamsize(entry.size()));
  const DataSplit repaired = load_fashion_mnist(dir.string(), Storage::float64, true);
  CHECK(file_mapped_at(repaired.train.features.storage_data()).empty());  // decompressed again
  CHECK(codes(repaired) == codes(decompressed));
  entry[16 + 7] ^= 0x40;
  CHECK(read_bytes(*train_entry) == entry);  // and the entry replaced
}
