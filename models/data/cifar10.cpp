// CIFAR-10 (Krizhevsky 2009, "Learning Multiple Layers of Features from Tiny Images"),
// binary version (the cifar-10-batches-bin folder): data_batch_1.bin .. data_batch_5.bin
// (training) and test_batch.bin (test). Every file is a sequence of 3,073-byte records:
//   1 label byte (0..9), then 3,072 pixel bytes: the R, G and B planes, each 32×32
//   row-major.
// A record becomes one row of 3,072 features in the file's order, i.e. channel-major
// C×H×W (the layout the convolutional networks read, models/objectives/cnn/layer.hpp),
// pixels p/255 ∈ [0, 1] like Fashion-MNIST. Any whole number of records per file is read
// (the official files hold 10,000 each). Errors name the file ("file: what").
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

constexpr Index kCifarPixels = 3 * 32 * 32;
constexpr Index kCifarRecord = 1 + kCifarPixels;

std::vector<unsigned char> read_cifar_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw DataError(path,
                    "cannot read file: no such file (extract the binary version of CIFAR-10, "
                    "cifar-10-binary.tar.gz, and set data.path to its cifar-10-batches-bin "
                    "folder)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw DataError(path, "cannot open file");
  std::vector<unsigned char> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  if (in.bad()) throw DataError(path, "cannot read file");
  return bytes;
}

// The records of the files `paths`, in order, as one data set.
Dataset load_cifar_records(const std::vector<std::string>& paths) {
  std::vector<std::vector<unsigned char>> files;
  Index n = 0;
  for (const std::string& path : paths) {
    files.push_back(read_cifar_file(path));
    const auto size = Index(files.back().size());
    if (size == 0) throw DataError(path, "empty file: no records");
    if (size % kCifarRecord != 0)
      throw DataError(path, "size " + std::to_string(size) +
                                " bytes is not a whole number of 3073-byte records (1 label "
                                "byte and 3072 pixel bytes): truncated or not a CIFAR-10 "
                                "binary file");
    n += size / kCifarRecord;
  }
  Dataset data;
  data.features.owned().resize(n, kCifarPixels);
  data.labels.resize(n);
  data.classes = 10;
  using Bytes = Eigen::Matrix<unsigned char, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  Index row = 0;
  for (std::size_t f = 0; f < files.size(); ++f) {
    const std::vector<unsigned char>& b = files[f];
    const Index records = Index(b.size()) / kCifarRecord;
    // Records × 3,073 bytes: column 0 the label, the rest the pixels.
    const Eigen::Map<const Bytes> table(b.data(), records, kCifarRecord);
    for (Index r = 0; r < records; ++r)
      if (table(r, 0) > 9)
        throw DataError(paths[f], "record " + std::to_string(r + 1) + " has label " +
                                      std::to_string(int(table(r, 0))) + " outside 0..9");
    data.features.owned().middleRows(row, records) =
        table.rightCols(kCifarPixels).cast<double>() / 255.0;
    data.labels.segment(row, records) = table.col(0).cast<double>();
    row += records;
  }
  return data;
}

}  // namespace

DataSplit load_cifar10(const std::string& dir) {
  const std::filesystem::path d(dir);
  std::vector<std::string> train;
  for (int k = 1; k <= 5; ++k)
    train.push_back((d / ("data_batch_" + std::to_string(k) + ".bin")).string());
  DataSplit split;
  split.train = load_cifar_records(train);
  split.test = load_cifar_records({(d / "test_batch.bin").string()});
  return split;
}

}  // namespace dlsim::models
