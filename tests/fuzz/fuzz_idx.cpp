// Fuzz target: the Fashion-MNIST IDX reader. The input is split at its first 0xFF 0xFE
// pair (or the middle) into an images file and a labels file, written (uncompressed:
// zlib reads plain files as they are; a gzip header in the bytes is decompressed) as
// both the training and the test pair; load_fashion_mnist may only throw DataError.
#include <cstdint>
#include <string_view>

#include "models/data/dataset.hpp"
#include "models/data/sources.hpp"
#include "tests/fuzz/fuzz_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto cut = bytes.find("\xFF\xFE");
  std::size_t rest = cut == std::string_view::npos ? size / 2 : cut + 2;
  if (cut == std::string_view::npos) cut = size / 2;
  using dlsim::fuzz::write_scratch;
  for (const char* set : {"train", "t10k"}) {
    write_scratch(std::string(set) + "-images-idx3-ubyte.gz", data, cut);
    write_scratch(std::string(set) + "-labels-idx1-ubyte.gz", data + rest, size - rest);
  }
  try {
    (void)dlsim::models::load_fashion_mnist(dlsim::fuzz::scratch_dir().string());
  } catch (const dlsim::models::DataError&) {
  } catch (const std::exception& e) {
    dlsim::fuzz::unexpected(e.what());
  }
  return 0;
}
