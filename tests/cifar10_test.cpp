// CIFAR-10 binary reader (models/data/cifar10.cpp) on small generated files: records
// decode byte for byte into C×H×W rows in [0,1], any whole number of records per file;
// truncated, missing or misnamed files and labels above 9 are refused naming the file.
// Stored as byte codes or floats directly, the values are those of the doubles, and a run
// gives the same metrics.csv. Then end to end: softmax and a small ResNet (option A shortcuts,
// group normalization) learn a pattern planted in generated 3×32×32 images (the class is the
// brightest colour channel), read through data.source cifar10, well above chance after a short run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <utility>
#include <vector>

#include "models/data/sources.hpp"
#include "run_helpers.hpp"

using namespace dlsim::models;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr int kRecord = 3073;

using Record = std::vector<unsigned char>;

void write_file(const fs::path& path, const std::vector<Record>& records) {
  std::ofstream out(path, std::ios::binary);
  for (const Record& r : records) out.write(reinterpret_cast<const char*>(r.data()), kRecord);
}

// A record whose pixel byte at (c, y, x) is (c·7 + y·3 + x + seed) mod 256.
Record pattern_record(unsigned char label, int seed) {
  Record r(kRecord);
  r[0] = label;
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 32; ++y)
      for (int x = 0; x < 32; ++x)
        r[1 + c * 1024 + y * 32 + x] = (unsigned char)((c * 7 + y * 3 + x + seed) % 256);
  return r;
}

// The six files of a folder: data_batch_k with k records (labels k−1, k), test_batch 3.
fs::path write_valid(const std::string& stem) {
  const fs::path dir = dlsim::test::fresh_dir(stem);
  for (int k = 1; k <= 5; ++k) {
    std::vector<Record> records;
    for (int i = 0; i < k; ++i)
      records.push_back(pattern_record((unsigned char)(k - 1 + i % 2), 10 * k + i));
    write_file(dir / ("data_batch_" + std::to_string(k) + ".bin"), records);
  }
  write_file(dir / "test_batch.bin",
             {pattern_record(9, 100), pattern_record(0, 101), pattern_record(3, 102)});
  return dir;
}

std::string error_of(const fs::path& dir) {
  try {
    load_cifar10(dir.string());
  } catch (const DataError& e) {
    return e.what();
  }
  return "no error";
}

// Images whose class (0, 1 or 2) is the brightest colour channel: every pixel of every
// channel uniform in [0, 160], the class's channel plus 60 everywhere.
std::vector<Record> brightest_channel_records(int n, std::mt19937_64& rng) {
  std::uniform_int_distribution<int> label(0, 2), pixel(0, 160);
  std::vector<Record> records;
  for (int i = 0; i < n; ++i) {
    Record r(kRecord);
    r[0] = (unsigned char)label(rng);
    for (int c = 0; c < 3; ++c)
      for (int p = 0; p < 1024; ++p)
        r[1 + c * 1024 + p] = (unsigned char)(pixel(rng) + (c == r[0] ? 60 : 0));
    records.push_back(r);
  }
  return records;
}

fs::path write_learnable(const std::string& stem, int per_file, int test) {
  const fs::path dir = dlsim::test::fresh_dir(stem);
  std::mt19937_64 rng(17);
  for (int k = 1; k <= 5; ++k)
    write_file(dir / ("data_batch_" + std::to_string(k) + ".bin"),
               brightest_channel_records(per_file, rng));
  write_file(dir / "test_batch.bin", brightest_channel_records(test, rng));
  return dir;
}

}  // namespace

TEST_CASE("cifar10: small files decode byte for byte, channel-major, in [0,1]") {
  const fs::path dir = write_valid("cifar");
  const DataSplit split = load_cifar10(dir.string());
  REQUIRE(split.train.size() == 1 + 2 + 3 + 4 + 5);
  REQUIRE(split.train.feature_count() == 3072);
  REQUIRE(split.test);
  REQUIRE(split.test->size() == 3);
  CHECK(split.train.classes == 10);
  CHECK(split.test->classes == 10);
  // Files in order data_batch_1 .. 5, records in file order.
  Index row = 0;
  for (int k = 1; k <= 5; ++k)
    for (int i = 0; i < k; ++i, ++row) {
      INFO("file " << k << " record " << i);
      CHECK(split.train.labels(row) == k - 1 + i % 2);
      const Record r = pattern_record(0, 10 * k + i);
      for (const int c : {0, 1, 2})
        for (const auto& [y, x] : {std::pair{0, 0}, std::pair{5, 31}, std::pair{31, 2}}) {
          const Index feature = c * 1024 + y * 32 + x;  // (c, y, x), x fastest
          CHECK(split.train.features(row, feature) == r[1 + feature] / 255.0);
        }
    }
  CHECK(split.test->labels(0) == 9);
  CHECK(split.test->labels(2) == 3);
  const Record t = pattern_record(0, 101);
  for (Index f = 0; f < 3072; f += 97) CHECK(split.test->features(1, f) == t[1 + f] / 255.0);
  CHECK(split.train.features.view().minCoeff() >= 0.0);
  CHECK(split.train.features.view().maxCoeff() <= 1.0);
}

TEST_CASE("cifar10: truncated, missing, misnamed and bad-label files are refused with their path") {
  SECTION("truncated: size not a multiple of 3073") {
    const fs::path dir = write_valid("cifar-trunc");
    const fs::path file = dir / "data_batch_2.bin";
    fs::resize_file(file, 2 * kRecord - 1);
    const std::string e = error_of(dir);
    CHECK_THAT(e, Catch::Contains(file.string() +
                                  ": size 6145 bytes is not a whole number of 3073-byte records"));
  }
  SECTION("empty") {
    const fs::path dir = write_valid("cifar-empty");
    fs::resize_file(dir / "test_batch.bin", 0);
    CHECK_THAT(error_of(dir), Catch::Contains((dir / "test_batch.bin").string() + ": empty file"));
  }
  SECTION("missing or misnamed") {
    const fs::path dir = write_valid("cifar-missing");
    fs::rename(dir / "data_batch_4.bin", dir / "data_batch_4.dat");
    CHECK_THAT(error_of(dir), Catch::Contains((dir / "data_batch_4.bin").string() +
                                              ": cannot read file: no such file"));
    fs::rename(dir / "data_batch_4.dat", dir / "data_batch_4.bin");
    fs::rename(dir / "data_batch_3.bin", dir / "data_batch_3.dat");
    fs::create_directory(dir / "data_batch_3.bin");  // something else at the name
    CHECK_THAT(error_of(dir), Catch::Contains((dir / "data_batch_3.bin").string() +
                                              ": cannot read file: not a regular file"));
    fs::remove(dir / "data_batch_3.bin");
    fs::rename(dir / "data_batch_3.dat", dir / "data_batch_3.bin");
    fs::remove(dir / "test_batch.bin");
    CHECK_THAT(error_of(dir),
               Catch::Contains((dir / "test_batch.bin").string() + ": cannot read file"));
    CHECK_THAT(error_of(dir / "nowhere"), Catch::Contains("data_batch_1.bin: cannot read file"));
  }
  SECTION("label above 9") {
    const fs::path dir = write_valid("cifar-label");
    write_file(dir / "data_batch_3.bin", {pattern_record(1, 0), pattern_record(10, 1)});
    CHECK(error_of(dir) ==
          (dir / "data_batch_3.bin").string() + ": record 2 has label 10 outside 0..9");
  }
}

TEST_CASE("cifar10: scenario keys, image shape and the official test set") {
  const fs::path dir = write_valid("cifar-scenario");
  const json doc = {{"workers", 1},
                    {"data", {{"source", "cifar10"}, {"path", dir.string()}}},
                    {"model", {{"kind", "softmax"}}},
                    {"algorithm", {{"batch_size", 5}}},
                    {"stop", {{"iterations", 2}}}};
  const auto scenario = dlsim::sim::load_scenario(doc);
  const DataShape shape = scenario.data.shape();
  REQUIRE(shape.image);
  CHECK(*shape.image == ImageShape{3, 32, 32});
  CHECK(shape.classes == 10);
  const auto prepared = dlsim::sim::prepare(scenario);
  CHECK(prepared.objective->dimension() == 3072 * 10 + 10);
  CHECK(dlsim::sim::resolve_scenario(doc)["data"]["path"] == dir.string());
  CHECK(dlsim::sim::resolve_scenario(json{{"data", {{"source", "cifar10"}}},
                                          {"model", {{"kind", "softmax"}}}})["data"]["path"] ==
        "/usr/share/datasets/cifar-10-batches-bin");
}

TEST_CASE("cifar10: softmax and a small ResNet learn the brightest channel from generated images") {
  const fs::path dir = write_learnable("cifar-learn", 64, 150);
  const json data = {{"source", "cifar10"}, {"path", dir.string()}};
  SECTION("softmax") {
    const json doc = {{"seed", 1},
                      {"workers", 2},
                      {"data", data},
                      {"model", {{"kind", "softmax"}}},
                      {"algorithm", {{"kind", "sgd"}, {"batch_size", 16}, {"step_size", 0.05}}},
                      {"stop", {{"iterations", 60}}},
                      {"metrics", {{"every", {{"iterations", 60}}}}}};
    const auto out = dlsim::test::run_scenario(doc, "cifar-softmax");
    const double accuracy = out.summary["final"]["test_accuracy"].get<double>();
    INFO("test accuracy " << accuracy << " (chance 1/3)");
    CHECK(accuracy > 0.8);
  }
  SECTION("resnet-8, width 0.25, option A shortcuts, group normalization") {
    const json doc = {
        {"seed", 1},
        {"workers", 2},
        {"data", data},
        {"model",
         {{"kind", "resnet"},
          {"depth", 8},
          {"width", 0.25},
          {"shortcut", "zero_pad"},
          {"norm", "group"},
          {"groups", 2}}},
        {"algorithm",
         {{"kind", "sgd"}, {"batch_size", 32}, {"step_size", 0.01}, {"momentum", 0.9}}},
        {"stop", {{"iterations", 150}}},
        {"metrics", {{"every", {{"iterations", 150}}}}}};
    const auto out = dlsim::test::run_scenario(doc, "cifar-resnet");
    const double accuracy = out.summary["final"]["test_accuracy"].get<double>();
    INFO("test accuracy " << accuracy << " (chance 1/3)");
    CHECK(accuracy > 0.8);
  }
}

// The reader writes the storage asked for directly, one file at a time: float64 with byte
// codes keeps the pixel bytes and a table of p/255 (the same doubles), float32 the floats
// FeatureMatrix::to_float32 makes of those doubles. The first file's record has every
// byte value 0..255 as a pixel (12 times).
TEST_CASE("cifar10: stored as byte codes or floats, the values of the doubles") {
  const fs::path dir = write_valid("cifar-storage");
  Record every_byte(kRecord);
  every_byte[0] = 4;
  for (int j = 0; j < 3072; ++j) every_byte[1 + j] = (unsigned char)(j % 256);
  write_file(dir / "data_batch_1.bin", {every_byte});
  DataSplit plain = load_cifar10(dir.string());
  const DataSplit coded = load_cifar10(dir.string(), Storage::float64, /*byte_codes=*/true);
  const DataSplit floats = load_cifar10(dir.string(), Storage::float32);
  CHECK_FALSE(plain.train.features.is_coded());
  CHECK_FALSE(plain.train.features.is_float32());
  REQUIRE(coded.train.features.is_coded());
  REQUIRE(coded.test->features.is_coded());
  CHECK(coded.train.features.value_bytes() == 1);
  REQUIRE(floats.train.features.is_float32());
  REQUIRE(floats.test->features.is_float32());
  for (const auto& [loaded, reference] : {std::pair{&coded.train, &plain.train},
                                          std::pair{&coded.test.value(), &plain.test.value()}}) {
    REQUIRE(loaded->size() == reference->size());
    Index differing = 0;
    for (Index i = 0; i < reference->size(); ++i)
      for (Index j = 0; j < 3072; ++j)
        differing += loaded->features(i, j) != reference->features(i, j);
    CHECK(differing == 0);
    CHECK(loaded->labels == reference->labels);
  }
  std::vector<bool> seen(256);
  for (Index i = 0; i < coded.train.size(); ++i)
    for (Index j = 0; j < 3072; ++j)
      seen[std::size_t(plain.train.features(i, j) * 255.0 + 0.5)] = true;
  CHECK(std::count(seen.begin(), seen.end(), true) == 256);
  plain.train.features.to_float32();
  plain.test->features.to_float32();
  CHECK(floats.train.features.view_float32() == plain.train.features.view_float32());
  CHECK(floats.test->features.view_float32() == plain.test->features.view_float32());
  CHECK(floats.train.labels == plain.train.labels);
}

// Through prepare() and a run: with nothing editing the values, cifar10 keeps byte codes,
// and so does the eval_samples subsample (the memory estimate counts 1 byte a feature and
// nothing while loading). The same prepared run with its rows decoded to doubles must
// write the same metrics.csv but for wall_s. 15 training, 3 test and 6 eval rows of 3,072:
//   coded: data 24 x (3,072 x 1 + 8) + 15 shard indices x 8 = 74,040; loading 0
// A train_samples subsample (10 of the 15 rows) copies rows as codes too; loading then
// counts the 18 loaded rows and the 10 copies at their stored size:
//   data (10 + 3 + 6) x 3,080 + 10 x 8 = 58,600; loading 28 x 3,080 = 86,240
TEST_CASE("cifar10: stored as loaded, the same run as from doubles") {
  const fs::path dir = write_valid("cifar-direct");
  json doc = {{"seed", 3},
              {"workers", 2},
              {"data", {{"source", "cifar10"}, {"path", dir.string()}}},
              {"model", {{"kind", "softmax"}}},
              {"algorithm", {{"kind", "sgd"}, {"batch_size", 4}, {"step_size", 0.1}}},
              {"stop", {{"iterations", 6}}},
              {"metrics", {{"every", {{"iterations", 2}}}, {"eval_samples", 6}}}};
  const auto piece = [](const dlsim::sim::PreparedRun& p, const std::string& name) {
    for (const auto& q : p.memory.pieces)
      if (q.name == name) return q.bytes;
    FAIL("no piece " << name);
    return 0.0;
  };
  const auto without_wall = [](const std::string& csv) {
    std::istringstream in(csv);
    std::string line, out;
    while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  const auto coded = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  CHECK(coded.data->train.features.is_coded());
  CHECK(coded.data->test->features.is_coded());
  REQUIRE(coded.data->eval);
  CHECK(coded.data->eval->features.is_coded());
  CHECK(coded.data->eval->size() == 6);
  CHECK(piece(coded, "data") == Approx(74040));
  CHECK(piece(coded, "loading") == 0);
  const auto coded_run = dlsim::test::run_scenario(doc, "cifar-direct-coded");

  const auto decoded_run = [&](const json& scenario, const std::string& stem) {
    auto plain = dlsim::sim::prepare(dlsim::sim::load_scenario(scenario));
    for (auto* data : {&plain.data->train, &*plain.data->test, &*plain.data->eval})
      data->features.decode_codes();
    REQUIRE_FALSE(plain.data->train.features.is_coded());
    return dlsim::test::run_prepared(plain, stem);
  };
  const auto plain_run = decoded_run(doc, "cifar-direct-plain");
  CHECK(std::count(coded_run.metrics_csv.begin(), coded_run.metrics_csv.end(), '\n') == 5);
  CHECK(without_wall(coded_run.metrics_csv) == without_wall(plain_run.metrics_csv));

  doc["data"]["train_samples"] = 10;
  const auto sub = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  CHECK(sub.data->train.features.is_coded());
  CHECK(sub.data->train.size() == 10);
  CHECK(piece(sub, "data") == Approx(58600));
  CHECK(piece(sub, "loading") == Approx(86240));
  const auto sub_run = dlsim::test::run_scenario(doc, "cifar-direct-sub");
  CHECK(without_wall(sub_run.metrics_csv) ==
        without_wall(decoded_run(doc, "cifar-direct-sub-plain").metrics_csv));
}
