// The data source registry's listing, and the keys every source with data shares.
#include "models/data/registry.hpp"

#include <algorithm>
#include <tuple>

namespace dlsim::models {

using nlohmann::json;
using namespace spec;

std::vector<const DataSourceInfo*> listed_data_sources() {
  std::vector<const DataSourceInfo*> infos = DataSourceRegistry::instance().all();
  std::stable_sort(infos.begin(), infos.end(), [](const auto* a, const auto* b) {
    return std::tie(a->order, a->name) < std::tie(b->order, b->name);
  });
  return infos;
}

std::string no_data_source() {
  for (const DataSourceInfo* info : listed_data_sources())
    if (!info->facts.has_data) return info->name;
  throw std::logic_error("no data source without data is registered");
}

std::vector<Key> data_common_keys() {
  const Object partition = with_kinds(
      kind_key("kind", "iid", "How samples are split among workers."), {},
      {{"iid", "Shuffle, then equal contiguous shards.", {}},
       {"dirichlet",
        "Per class, worker shares drawn from Dir(alpha); every worker gets >= 1 sample.",
        {defaulted("alpha", number().gt(0), 0.5,
                   "Concentration: small = few classes per worker, large = near iid."),
         defaulted("balanced", boolean(), false,
                   "Equal-size shards of floor(N/workers) samples, drawn as the AdaGossip "
                   "reference code draws them: within groups of 10 workers, a worker stops "
                   "receiving shares once it holds its fair size, the draw is repeated until "
                   "every worker holds half of it, and the concatenated draws are cut into "
                   "equal shards (the last N mod workers samples are left out).")}},
       {"shards",
        "Sort by label, cut into workers*per_worker shards, deal per_worker at random.",
        {defaulted("per_worker", integer().ge(1), 2, "Shards dealt to every worker.")}},
       {"sorted", "Stable sort by label, then contiguous shards sized as for iid.", {}}});
  return {
      defaulted("test_fraction", number().ge(0).lt(1), 0,
                "Fraction of the training samples held out as the test set (0: none)."),
      optional("train_samples", integer().ge(1),
               "Keep only a seeded random subset of this many training samples."),
      defaulted("normalize", one_of({"none", "standard", "minmax", "channel"}), "none",
                "Feature scaling fitted on the training split: none, standard (zero mean, "
                "unit variance per feature), minmax ([0,1] per feature) or channel (images: "
                "(x - mean_c)/std_c per colour channel c, as torchvision's Normalize; mean "
                "and std from channel_mean and channel_std, else fitted over all the "
                "channel's pixels of the training split)."),
      optional("channel_mean", array_of(number()),
               "normalize channel: the mean of every channel, e.g. [0.5] for Fashion-MNIST as "
               "the AdaGossip code has it, [0.4914, 0.4822, 0.4465] for CIFAR-10 (with "
               "channel_std)."),
      optional("channel_std", array_of(number().gt(0)),
               "normalize channel: the standard deviation of every channel, e.g. [0.5] or "
               "[0.2023, 0.1994, 0.2010] (with channel_mean)."),
      defaulted("storage", one_of({"float64", "float32"}), "float64",
                "How the features are kept in memory once prepared: float64 (fashion-mnist or "
                "cifar10 data is kept as its pixel bytes with a table of their values, an eighth "
                "of the memory and the same results, unless a normalize needs the doubles: "
                "standard, minmax, or channel with computed statistics or per-channel values "
                "that differ), or float32 (every value "
                "rounded once to the nearest float after normalization: half the memory, and "
                "full-data evaluations read half the bytes; the math stays in doubles, so "
                "results differ from float64 only by that rounding)."),
      defaulted("partition", object(partition), json::object(),
                "How the training set is split among the workers."),
  };
}

Key image_shape_key() {
  return optional("image_shape", array_of(integer().ge(1).le(1 << 20)),
                  "[channels, height, width] of every sample when its features are an image "
                  "stored channel-major (c, y, x): what the convolutional networks take; their "
                  "product must be the feature count. Absent: 784 features are read as 1x28x28.");
}

std::optional<ImageShape> read_image_shape(const json& data) {
  if (!data.contains("image_shape")) return std::nullopt;
  const json& dims = data.at("image_shape");
  if (dims.size() != 3)
    throw DataConfigError("image_shape", "must be [channels, height, width], got " +
                                             std::to_string(dims.size()) + " numbers");
  return ImageShape{dims[0].get<std::int64_t>(), dims[1].get<std::int64_t>(),
                    dims[2].get<std::int64_t>()};
}

void check_image_features(const std::optional<ImageShape>& image, std::int64_t features,
                          const std::string& where) {
  if (image && image->size() != features)
    throw DataConfigError("image_shape", image->text() + " images have " +
                                             std::to_string(image->size()) + " features but " +
                                             where + " has " + std::to_string(features));
}

}  // namespace dlsim::models
