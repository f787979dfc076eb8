// Fashion-MNIST (Xiao, Rasul, Vollgraf 2017, arXiv:1708.07747) from the Debian package
// dataset-fashion-mnist: IDX files, gzip-compressed, read with zlib.
//   IDX: big-endian uint32 magic 0x00000803 (images: count, rows, cols) or 0x00000801
//   (labels: count), then unsigned bytes. Pixels become doubles p/255 ∈ [0, 1] (or those
//   rounded to floats, for float32 storage).
// Errors name the file ("file: what"); there are no lines in a binary file.
#include <zlib.h>

#include <array>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <memory>
#include <vector>

#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

// The uncompressed size a gzip file declares in its last four bytes (ISIZE, RFC 1952: the
// size mod 2^32, little-endian), as a capacity hint only: 0 for a plain file, an unreadable
// trailer, or a size above 1 GiB (a wrong hint costs at most that much reserved memory).
std::size_t declared_size(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  unsigned char magic[2] = {0, 0};
  if (!in.read(reinterpret_cast<char*>(magic), 2) || magic[0] != 0x1f || magic[1] != 0x8b) return 0;
  unsigned char trailer[4];
  if (!in.seekg(-4, std::ios::end) || !in.read(reinterpret_cast<char*>(trailer), 4)) return 0;
  const std::size_t size = std::size_t(trailer[0]) | std::size_t(trailer[1]) << 8 |
                           std::size_t(trailer[2]) << 16 | std::size_t(trailer[3]) << 24;
  return size <= (std::size_t(1) << 30) ? size : 0;
}

// The whole decompressed content of a gzip file (plain files are read as they are).
std::vector<unsigned char> read_gzip(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw DataError(path,
                    "cannot read file: no such file (install the Debian package "
                    "dataset-fashion-mnist or set data.path)");
  const std::unique_ptr<gzFile_s, int (*)(gzFile)> file(gzopen(path.c_str(), "rb"), gzclose);
  if (!file) throw DataError(path, "cannot open file");
  std::vector<unsigned char> bytes;
  bytes.reserve(declared_size(path));  // no regrowth copies of a 47 MB image file
  std::array<unsigned char, 1 << 16> buffer{};
  while (true) {
    const int got = gzread(file.get(), buffer.data(), unsigned(buffer.size()));
    if (got < 0) {
      int code = 0;
      throw DataError(path, std::string("corrupt gzip data: ") + gzerror(file.get(), &code));
    }
    if (got == 0) break;
    bytes.insert(bytes.end(), buffer.begin(), buffer.begin() + got);
  }
  return bytes;
}

std::uint32_t big_endian(const std::vector<unsigned char>& b, std::size_t at) {
  return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 |
         std::uint32_t(b[at + 2]) << 8 | std::uint32_t(b[at + 3]);
}

// The header's dimensions after checking magic and length.
std::vector<std::uint32_t> idx_dims(const std::vector<unsigned char>& b, const std::string& path,
                                    std::uint32_t magic, std::size_t dims) {
  const std::size_t header = 4 * (1 + dims);
  if (b.size() < header) throw DataError(path, "truncated IDX header");
  if (big_endian(b, 0) != magic)
    throw DataError(path, "not an IDX file of unsigned bytes with " + std::to_string(dims) +
                              " dimensions (bad magic number)");
  std::vector<std::uint32_t> d;
  std::size_t count = 1;
  bool overflow = false;  // three 32-bit sizes can wrap around 64 bits and "match" a short file
  for (std::size_t k = 0; k < dims; ++k) {
    d.push_back(big_endian(b, 4 * (1 + k)));
    overflow |= __builtin_mul_overflow(count, std::size_t(d.back()), &count);
  }
  if (overflow) {
    std::string dims_text;
    for (auto v : d) dims_text += (dims_text.empty() ? "" : " x ") + std::to_string(v);
    throw DataError(path, "the header's dimensions " + dims_text + " exceed any file size");
  }
  if (count != b.size() - header)
    throw DataError(path, "expected " + std::to_string(count) +
                              " data bytes after the header, "
                              "found " +
                              std::to_string(b.size() - header));
  return d;
}

// The n x pixels features of the pixel bytes at `bytes`: double(p) / 255, or for float32
// storage that double rounded to a float (FeatureMatrix::to_float32's value, from a table
// of the 256), so that no float64 copy is made.
FeatureMatrix pixel_features(const unsigned char* bytes, Index n, Index pixels, Storage storage) {
  using Bytes = Eigen::Matrix<unsigned char, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const Eigen::Map<const Bytes> p(bytes, n, pixels);
  if (storage == Storage::float64) return Matrix(p.cast<double>() / 255.0);
  std::array<float, 256> value{};
  for (std::size_t b = 0; b < value.size(); ++b) value[b] = float(double(b) / 255.0);
  MatrixF x(n, pixels);
  float* to = x.data();
  for (Index i = 0; i < n * pixels; ++i) to[i] = value[bytes[i]];
  return FeatureMatrix::of_floats(std::move(x));
}

Dataset load_pair(const std::string& images_path, const std::string& labels_path, Storage storage) {
  const auto images = read_gzip(images_path);
  const auto labels = read_gzip(labels_path);
  const auto image_dims = idx_dims(images, images_path, 0x00000803, 3);
  const auto label_dims = idx_dims(labels, labels_path, 0x00000801, 1);
  if (image_dims[0] != label_dims[0])
    throw DataError(labels_path, std::to_string(label_dims[0]) + " labels for " +
                                     std::to_string(image_dims[0]) + " images in " + images_path);
  const Index n = Index(image_dims[0]);
  const Index pixels = Index(image_dims[1]) * Index(image_dims[2]);
  if (n == 0 || pixels == 0) throw DataError(images_path, "no images");

  Dataset data;
  data.features = pixel_features(images.data() + 16, n, pixels, storage);
  data.labels =
      Eigen::Map<const Eigen::Matrix<unsigned char, Eigen::Dynamic, 1>>(labels.data() + 8, n)
          .cast<double>();
  if (data.labels.maxCoeff() > 9)
    throw DataError(labels_path,
                    "label " + std::to_string(int(data.labels.maxCoeff())) + " outside 0..9");
  data.classes = 10;
  return data;
}

}  // namespace

DataSplit load_fashion_mnist(const std::string& dir, Storage storage) {
  const std::filesystem::path d(dir);
  DataSplit split;
  split.train = load_pair((d / "train-images-idx3-ubyte.gz").string(),
                          (d / "train-labels-idx1-ubyte.gz").string(), storage);
  split.test = load_pair((d / "t10k-images-idx3-ubyte.gz").string(),
                         (d / "t10k-labels-idx1-ubyte.gz").string(), storage);
  if (split.test->feature_count() != split.train.feature_count())
    throw DataError(dir, "training and test images differ in size");
  return split;
}

}  // namespace dlsim::models
