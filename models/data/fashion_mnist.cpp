// Fashion-MNIST (Xiao, Rasul, Vollgraf 2017, arXiv:1708.07747) from the Debian package
// dataset-fashion-mnist: IDX files, gzip-compressed, read with libdeflate, the images'
// decompressed bytes kept in the DecodedCache for the next runs.
//   IDX: big-endian uint32 magic 0x00000803 (images: count, rows, cols) or 0x00000801
//   (labels: count), then unsigned bytes. Pixels become doubles p/255 ∈ [0, 1] (or those
//   rounded to floats, for float32 storage).
// Errors name the file ("file: what"); there are no lines in a binary file.
#include <libdeflate.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <future>
#include <memory>
#include <new>
#include <span>
#include <system_error>
#include <vector>

#include "models/data/byte_buffer.hpp"
#include "models/data/decoded_cache.hpp"
#include "models/data/file_bytes.hpp"
#include "models/data/mapped_file.hpp"
#include "models/data/pixel_features.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

namespace {

// Whether a gzip member starts at `at`.
bool gzip_member_at(const unsigned char* b, std::size_t size, std::size_t at) {
  return size - at >= 2 && b[at] == 0x1f && b[at + 1] == 0x8b;
}

// A data file's bytes, and the archive they came from when they are worth caching.
struct ReadFile {
  FileBytes bytes;
  std::shared_ptr<const MappedFile> gzip;  // a one-member archive just decompressed
};

// The decompressed content of a gzip file: from the cache when it holds it, else by
// libdeflate (whole buffers: about twice zlib's speed) from the file mapped into memory;
// a plain file is returned as it is, like zlib's gzread does. Members follow each other
// until the bytes left are not one (trailing bytes are ignored, as gzread ignores them). A
// member's size is not known before it is decompressed: the output starts at the size the
// file's last four bytes declare (ISIZE, RFC 1952: the last member's size mod 2^32) and
// doubles whenever it is too small. (Faulting the output's pages in at once,
// MADV_POPULATE_WRITE, saved about 5 ms of the 47 MB's page faults, but would commit the
// 4 GB a hostile ISIZE can claim.)
ReadFile read_gzip(const std::string& path, const DecodedCache& cache) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec))
    throw DataError(path,
                    "cannot read file: no such file (install the Debian package "
                    "dataset-fashion-mnist or set data.path)");
  if (!std::filesystem::is_regular_file(path, ec))
    throw DataError(path, "cannot read file: not a regular file");
  std::shared_ptr<const MappedFile> file;
  try {
    file = std::make_shared<const MappedFile>(path);
  } catch (const std::system_error& e) {
    throw DataError(path, e.what());
  }
  const unsigned char* in = file->data();
  const std::size_t size = file->size();
  // A plain file is copied, not kept mapped: a mapping of a file someone rewrites during
  // the run would fault (the cache's entries are only ever replaced, never rewritten).
  if (!gzip_member_at(in, size, 0)) return {FileBytes{ByteBuffer(in, in + size), nullptr}, nullptr};
  if (auto cached = cache.find(path, std::span<const unsigned char>(in, size)))
    return {FileBytes{ByteBuffer(), std::move(cached)}, nullptr};
  const std::unique_ptr<libdeflate_decompressor, void (*)(libdeflate_decompressor*)> inflater(
      libdeflate_alloc_decompressor(), libdeflate_free_decompressor);
  if (!inflater) throw std::bad_alloc();
  std::size_t declared = 0;
  for (std::size_t i = 0; i < 4 && size >= 4; ++i)
    declared |= std::size_t(in[size - 4 + i]) << (8 * i);
  ByteBuffer out(std::max<std::size_t>(declared, 1 << 16));
  std::size_t read = 0, written = 0, members = 0;
  while (gzip_member_at(in, size, read)) {
    std::size_t used = 0, got = 0;
    const libdeflate_result r =
        libdeflate_gzip_decompress_ex(inflater.get(), in + read, size - read, out.data() + written,
                                      out.size() - written, &used, &got);
    if (r == LIBDEFLATE_INSUFFICIENT_SPACE) {
      out.resize(2 * out.size());
      continue;
    }
    if (r != LIBDEFLATE_SUCCESS)
      throw DataError(path, "corrupt gzip data: not a complete, valid gzip stream");
    read += used;
    written += got;
    ++members;
  }
  out.resize(written);
  const bool one_member = members == 1 && read == size;
  return {FileBytes{std::move(out), nullptr}, one_member ? std::move(file) : nullptr};
}

// Keeps a file's decompressed bytes in the cache, once they are known good.
void remember(const std::string& path, const ReadFile& file, const DecodedCache& cache) {
  if (file.gzip)
    cache.store(path, std::span<const unsigned char>(file.gzip->data(), file.gzip->size()),
                std::span<const unsigned char>(file.bytes.data(), file.bytes.size()));
}

std::uint32_t big_endian(const FileBytes& b, std::size_t at) {
  return std::uint32_t(b[at]) << 24 | std::uint32_t(b[at + 1]) << 16 |
         std::uint32_t(b[at + 2]) << 8 | std::uint32_t(b[at + 3]);
}

// The header's dimensions after checking magic and length.
std::vector<std::uint32_t> idx_dims(const FileBytes& b, const std::string& path,
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

Dataset load_pair(const std::string& images_path, const std::string& labels_path, Storage storage,
                  bool byte_codes, const DecodedCache& cache) {
  ReadFile images = read_gzip(images_path, cache);
  const ReadFile labels = read_gzip(labels_path, cache);
  const auto image_dims = idx_dims(images.bytes, images_path, 0x00000803, 3);
  const auto label_dims = idx_dims(labels.bytes, labels_path, 0x00000801, 1);
  if (image_dims[0] != label_dims[0])
    throw DataError(labels_path, std::to_string(label_dims[0]) + " labels for " +
                                     std::to_string(image_dims[0]) + " images in " + images_path);
  const Index n = Index(image_dims[0]);
  const Index pixels = Index(image_dims[1]) * Index(image_dims[2]);
  if (n == 0 || pixels == 0) throw DataError(images_path, "no images");

  Dataset data;
  constexpr std::size_t kHeader = 16;  // the pixels follow the IDX header
  data.labels =
      Eigen::Map<const Eigen::Matrix<unsigned char, Eigen::Dynamic, 1>>(labels.bytes.data() + 8, n)
          .cast<double>();
  if (data.labels.maxCoeff() > 9)
    throw DataError(labels_path,
                    "label " + std::to_string(int(data.labels.maxCoeff())) + " outside 0..9");
  remember(images_path, images, cache);  // known good now
  remember(labels_path, labels, cache);
  data.features = pixel_features(std::move(images.bytes), kHeader, n, pixels, storage, byte_codes);
  data.classes = 10;
  return data;
}

}  // namespace

DataSplit load_fashion_mnist(const std::string& dir, Storage storage, bool byte_codes) {
  const std::filesystem::path d(dir);
  // The test set (a seventh of the bytes) is read and decompressed on a thread of its own
  // while this one does the training set. An error in the training files is reported
  // first, as when they were read one after the other.
  const DecodedCache cache;  // where the environment says (decoded_cache.hpp)
  auto test = std::async(std::launch::async, [&] {
    return load_pair((d / "t10k-images-idx3-ubyte.gz").string(),
                     (d / "t10k-labels-idx1-ubyte.gz").string(), storage, byte_codes, cache);
  });
  DataSplit split;
  split.train = load_pair((d / "train-images-idx3-ubyte.gz").string(),
                          (d / "train-labels-idx1-ubyte.gz").string(), storage, byte_codes, cache);
  split.test = test.get();
  if (split.test->feature_count() != split.train.feature_count())
    throw DataError(dir, "training and test images differ in size");
  return split;
}

}  // namespace dlsim::models
