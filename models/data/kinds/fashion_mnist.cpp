// Data source `fashion-mnist`: the IDX gzip files of Fashion-MNIST
// (models/data/fashion_mnist.cpp), with the official test set.
#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {
namespace fashion_mnist_source {

using nlohmann::json;
using namespace spec;

struct FashionMnistSource final : DataOptions {
  std::string dir;

  DataSplit load(std::mt19937_64& /*rng*/) const override {
    return or_config_error("path", [&] { return load_fashion_mnist(dir); });
  }
  DataSplit load(std::mt19937_64& /*rng*/, const DenseCheck& /*check*/,
                 Storage storage) const override {
    // Nothing edits the values before they are stored: float64 keeps the pixel bytes.
    return or_config_error("path", [&] {
      return load_fashion_mnist(dir, storage, /*byte_codes=*/storage == Storage::float64);
    });
  }
  DataShape shape() const override {
    return {.image = ImageShape{1, 28, 28},
            .image_text = "fashion-mnist images are 1x28x28",
            .classes = 10,
            .classes_text = "fashion-mnist has 10 classes"};
  }
  std::vector<std::pair<std::string, std::string>> paths() const override {
    return {{"path", dir}};
  }
  std::optional<std::string> own_test_set() const override {
    return "for fashion-mnist, which has its official 10,000-image test set";
  }
};

std::shared_ptr<const DataOptions> read(const json& j) {
  auto o = std::make_shared<FashionMnistSource>();
  o->dir = j.at("path").get<std::string>();
  return o;
}

const DataSourceRegistration registered{{
    .name = "fashion-mnist",
    .doc = "Fashion-MNIST IDX gzip files: 60,000 training and 10,000 test images, 784 pixels "
           "in [0,1], 10 classes.",
    .keys = {defaulted("path", string().nonempty(), "/usr/share/datasets/fashion-mnist",
                       "Directory holding the four *-ubyte.gz files (Debian package "
                       "dataset-fashion-mnist).")},
    .facts = {.official_test_set = true, .writes_storage = true},
    .read = read,
    .order = 4,
}};

}  // namespace fashion_mnist_source
}  // namespace dlsim::models
