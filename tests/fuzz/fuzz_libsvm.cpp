// Fuzz target: arbitrary bytes as a libsvm file; parse_libsvm may only refuse them with
// DataError, and what it accepts must densify (to at most 4096 columns, the size the
// fuzzer can afford) without error.
#include <algorithm>
#include <cstdint>

#include "models/data/dataset.hpp"
#include "models/data/sources.hpp"
#include "tests/fuzz/fuzz_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dlsim::fuzz::write_scratch("data.libsvm", data, size);
  try {
    const auto file = dlsim::models::parse_libsvm(path);
    if (file.max_feature <= 4096 && file.rows.size() <= 4096)
      (void)dlsim::models::densify(file, file.max_feature);
  } catch (const dlsim::models::DataError&) {
  } catch (const std::exception& e) {
    dlsim::fuzz::unexpected(e.what());
  }
  return 0;
}
