// Data source `cifar10`: the binary version of CIFAR-10 (models/data/cifar10.cpp), 3×32×32
// colour images in 10 classes, with the official test set.
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {
namespace cifar10_source {

using nlohmann::json;
using namespace spec;

struct Cifar10Source final : DataOptions {
  std::string dir;

  DataSplit load(std::mt19937_64& /*rng*/) const override {
    return or_config_error("path", [&] { return load_cifar10(dir); });
  }
  DataSplit load(std::mt19937_64& /*rng*/, const DenseCheck& /*check*/,
                 Storage storage) const override {
    // Nothing edits the values before they are stored: float64 keeps the pixel bytes.
    return or_config_error("path", [&] {
      return load_cifar10(dir, storage, /*byte_codes=*/storage == Storage::float64);
    });
  }
  DataShape shape() const override {
    return {.image = ImageShape{3, 32, 32},
            .image_text = "cifar10 images are 3x32x32",
            .classes = 10,
            .classes_text = "cifar10 has 10 classes"};
  }
  std::vector<std::pair<std::string, std::string>> paths() const override {
    return {{"path", dir}};
  }
  std::optional<std::string> own_test_set() const override {
    return "for cifar10, which has its official test set (test_batch.bin)";
  }
};

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<Cifar10Source>();
  o->dir = j.at("path").get<std::string>();
  return o;
}

const DataSourceRegistration registered{{
    .name = "cifar10",
    .doc = "CIFAR-10, binary version (Krizhevsky 2009): 50,000 training and 10,000 test "
           "colour images of 3x32x32 = 3,072 values in [0,1] stored channel-major (R, G, B "
           "planes), 10 classes.",
    .keys = {defaulted("path", string().nonempty(), "/usr/share/datasets/cifar-10-batches-bin",
                       "Folder cifar-10-batches-bin of the binary version "
                       "(cifar-10-binary.tar.gz, not shipped with dlsim): data_batch_1.bin .. "
                       "data_batch_5.bin for training, test_batch.bin for test; each a whole "
                       "number of 3,073-byte records (label byte 0..9, then 3,072 pixel "
                       "bytes).")},
    .facts = {.official_test_set = true, .writes_storage = true},
    .read = read,
    .order = 4,
}};

}  // namespace cifar10_source
}  // namespace dlsim::models
