// The keys of the `data` section (docs/design.md §4): where samples come from (generated,
// read from files, or none), the test split, feature scaling, and how the training set
// is partitioned among the workers. Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object data_section() {
  const Object partition = with_kinds(
      kind_key("kind", "iid", "How samples are split among workers."), {},
      {{"iid", "Shuffle, then equal contiguous shards.", {}},
       {"dirichlet",
        "Per class, worker shares drawn from Dir(alpha); every worker gets >= 1 sample.",
        {defaulted("alpha", number().gt(0), 0.5,
                   "Concentration: small = few classes per worker, large = near iid.")}},
       {"shards",
        "Sort by label, cut into workers*per_worker shards, deal per_worker at random.",
        {defaulted("per_worker", integer().ge(1), 2, "Shards dealt to every worker.")}},
       {"sorted", "Stable sort by label, then contiguous shards sized as for iid.", {}}});
  const std::vector<Key> with_data = {
      defaulted("test_fraction", number().ge(0).lt(1), 0,
                "Fraction of the training samples held out as the test set (0: none)."),
      optional("train_samples", integer().ge(1),
               "Keep only a seeded random subset of this many training samples."),
      defaulted("normalize", one_of({"none", "standard", "minmax"}), "none",
                "Feature scaling fitted on the training split: none, standard (zero mean, "
                "unit variance) or minmax ([0,1])."),
      defaulted("partition", object(partition), json::object(),
                "How the training set is split among the workers."),
  };
  const auto preset_is_msd = [](const json& root) {
    return lookup(root, {"data", "preset"}) == "yearpredictionmsd";
  };
  Key samples = defaulted("samples", integer().ge(1), 1000, "Number of samples generated.");
  samples.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 463715 : 1000); };
  samples.default_doc = "463715 with preset yearpredictionmsd, else 1000";
  Key features = defaulted("features", integer().ge(1), 20, "Number of features.");
  features.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 90 : 20); };
  features.default_doc = "90 with preset yearpredictionmsd, else 20";
  Object data = with_kinds(
      kind_key("source", "synthetic-regression",
               "Where samples come from; none for models that need no data (profile, "
               "consensus)."),
      {},
      {
          {"synthetic-regression",
           "b = A w* + noise; rows of A Gaussian with a chosen condition number.",
           std::vector<Key>{
               defaulted("preset", one_of({"none", "yearpredictionmsd"}), "none",
                         "Shape preset: yearpredictionmsd = 463,715 samples x 90 features "
                         "(as in the LPC-SVRG paper)."),
               samples,
               features,
               defaulted("noise", number().ge(0), 0.1, "Standard deviation of the label noise."),
               defaulted("condition", number().ge(1), 1,
                         "Condition number of the feature covariance."),
           } + with_data},
          {"synthetic-classification",
           "Gaussian clusters: class centres N(0, separation^2/features I), unit noise.",
           std::vector<Key>{
               defaulted("samples", integer().ge(1), 1000, "Number of samples generated."),
               defaulted("features", integer().ge(1), 20, "Number of features."),
               defaulted("classes", integer().ge(2).le(100000), 2, "Number of classes."),
               defaulted("separation", number().ge(0), 2,
                         "Scale of the class centres (mean centre distance sqrt(2)*separation, "
                         "noise 1 per feature)."),
           } + with_data},
          {"csv", "A CSV file with a header row; the label column, every other column numeric.",
           std::vector<Key>{
               required("path", string().nonempty(), "Path of the training CSV file."),
               defaulted("test_path", string(), "",
                         "Path of a separate test CSV file (empty: none)."),
               defaulted("label_column", string().nonempty(), "label",
                         "Name of the column that holds the label."),
           } + with_data},
          {"libsvm",
           "libsvm/svmlight lines `label idx:value ...` (1-based indices), stored densely.",
           std::vector<Key>{
               required("path", string().nonempty(), "Path of the training file."),
               defaulted("test_path", string(), "", "Path of a separate test file (empty: none)."),
           } + with_data},
          {"fashion-mnist",
           "Fashion-MNIST IDX gzip files: 60,000 training and 10,000 test images, 784 pixels "
           "in [0,1], 10 classes.",
           std::vector<Key>{
               defaulted("path", string().nonempty(), "/usr/share/datasets/fashion-mnist",
                         "Directory holding the four *-ubyte.gz files (Debian package "
                         "dataset-fashion-mnist)."),
           } + with_data},
          {"none", "No data (model.kind profile or consensus).", {}},
      });
  data.discriminator->dynamic = [](const json& root) {
    const json kind = lookup(root, {"model", "kind"});
    return json(kind == "profile" || kind == "consensus" ? "none" : "synthetic-regression");
  };
  data.discriminator->default_doc =
      "none when model.kind is profile or consensus, else synthetic-regression";
  return data;
}

}  // namespace dlsim::sim::spec::sections
