// CIFAR-10 (Krizhevsky 2009, "Learning Multiple Layers of Features from Tiny Images"),
// binary version (the cifar-10-batches-bin folder): data_batch_1.bin .. data_batch_5.bin
// (training) and test_batch.bin (test). Every file is a sequence of 3,073-byte records:
//   1 label byte (0..9), then 3,072 pixel bytes: the R, G and B planes, each 32×32
//   row-major.
// A record becomes one row of 3,072 features in the file's order, i.e. channel-major
// C×H×W (the layout the convolutional networks read, models/objectives/cnn/layer.hpp),
// pixels p/255 ∈ [0, 1] like Fashion-MNIST, stored as doubles, as byte codes with a table
// of their 256 values (the same doubles) or as floats (models/data/pixel_features.hpp). Any whole
// number of records per file is read (the official files hold 10,000 each). Errors name the file
// ("file: what").
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "models/data/pixel_features.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

constexpr Index kCifarPixels = 3 * 32 * 32;
constexpr Index kCifarRecord = 1 + kCifarPixels;

// The size of the file at `path` in bytes, once it is known to be a file.
Index cifar_file_size(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw DataError(path,
                    "cannot read file: no such file (extract the binary version of CIFAR-10, "
                    "cifar-10-binary.tar.gz, and set data.path to its cifar-10-batches-bin "
                    "folder)");
  if (!std::filesystem::is_regular_file(path, ec))
    throw DataError(path, "cannot read file: not a regular file");
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw DataError(path, "cannot read file: " + ec.message());
  return Index(size);
}

std::vector<unsigned char> read_cifar_file(const std::string& path, Index size) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot open file");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path, "cannot read file");
  if (Index(bytes.size()) != size)
    throw DataError(path, "the file changed size while it was read (" + std::to_string(size) +
                              " bytes, then " + std::to_string(bytes.size()) + ")");
  return bytes;
}

// The records of the files `paths`, in order, as one data set, its features stored as
// pixel_features() does. Every file's size is checked before any is read; then one file
// at a time is read and its pixels written where they are stored, so loading holds one
// file besides what is stored.
Dataset load_cifar_records(const std::vector<std::string>& paths, Storage storage,
                           bool byte_codes) {
  std::vector<Index> sizes;
  Index n = 0;
  for (const std::string& path : paths) {
    const Index size = cifar_file_size(path);
    if (size == 0) throw DataError(path, "empty file: no records");
    if (size % kCifarRecord != 0)
      throw DataError(path, "size " + std::to_string(size) +
                                " bytes is not a whole number of 3073-byte records (1 label "
                                "byte and 3072 pixel bytes): truncated or not a CIFAR-10 "
                                "binary file");
    sizes.push_back(size);
    n += size / kCifarRecord;
  }
  PixelRows features(n, kCifarPixels, storage, byte_codes);
  Dataset data;
  data.labels.resize(n);
  data.classes = 10;
  Index row = 0;
  for (std::size_t f = 0; f < paths.size(); ++f) {
    const std::vector<unsigned char> b = read_cifar_file(paths[f], sizes[f]);
    const Index records = sizes[f] / kCifarRecord;
    // Records of 3,073 bytes: the label, then the pixels.
    for (Index r = 0; r < records; ++r) {
      const unsigned char* record = b.data() + std::size_t(r * kCifarRecord);
      if (record[0] > 9)
        throw DataError(paths[f], "record " + std::to_string(r + 1) + " has label " +
                                      std::to_string(int(record[0])) + " outside 0..9");
      data.labels(row + r) = double(record[0]);
    }
    for (Index r = 0; r < records; ++r)
      features.set_row(row + r, b.data() + std::size_t(r * kCifarRecord) + 1);
    row += records;
  }
  data.features = features.take();
  return data;
}

}  // namespace

DataSplit load_cifar10(const std::string& dir, Storage storage, bool byte_codes) {
  const std::filesystem::path d(dir);
  std::vector<std::string> train;
  for (int k = 1; k <= 5; ++k)
    train.push_back((d / ("data_batch_" + std::to_string(k) + ".bin")).string());
  DataSplit split;
  split.train = load_cifar_records(train, storage, byte_codes);
  split.test = load_cifar_records({(d / "test_batch.bin").string()}, storage, byte_codes);
  return split;
}

}  // namespace dlsim::models
