// Fuzz target: arbitrary bytes as a CSV data file (label column "y"); load_csv may only
// refuse them with DataError.
#include <cstdint>

#include "models/data/dataset.hpp"
#include "models/data/sources.hpp"
#include "tests/fuzz/fuzz_io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = dlsim::fuzz::write_scratch("data.csv", data, size);
  try {
    (void)dlsim::models::load_csv(path, "y");
  } catch (const dlsim::models::DataError&) {
  } catch (const std::exception& e) {
    dlsim::fuzz::unexpected(e.what());
  }
  return 0;
}
