// Compressor object → typed config → compressor chain (factory.hpp).
#include "models/compress/factory.hpp"

#include "models/compress/wrappers.hpp"

namespace dlsim::models {

using nlohmann::json;

spec::Key compressor_kind_key(std::string doc) {
  return spec::kind_key("kind", kUncompressed, std::move(doc));
}

std::vector<spec::Key> compressor_common_keys() {
  using namespace spec;
  return {defaulted("error_feedback", boolean(), false,
                    "Error feedback: e <- e + v; send q = C(e); e <- e - q (one residual per "
                    "message stream). Allowed on every kind; with none it feeds back fp32 "
                    "rounding."),
          defaulted("per_tensor", boolean(), true,
                    "Compress each tensor (layer) of the model separately and concatenate; "
                    "bits = sum. No effect on models with one tensor.")};
}

CompressorConfig parse_compressor(const json& j) {
  CompressorConfig c;
  const json kind = read_key(j, {compressor_kind_key("")}, "kind");
  if (!kind.is_string())
    throw CompressorConfigError("kind", "must be a string; got " + kind.dump());
  c.kind = kind.get<std::string>();
  const CompressorInfo* info = CompressorRegistry::instance().find(c.kind);
  if (!info) throw CompressorConfigError("kind", "unknown compressor \"" + c.kind + "\"");
  const std::vector<spec::Key> common = compressor_common_keys();
  c.error_feedback = read_key(j, common, "error_feedback").get<bool>();
  c.per_tensor = read_key(j, common, "per_tensor").get<bool>();
  c.options = info->read(j);
  return c;
}

const std::vector<std::string>& all_reducible_kinds() {
  // Builds one compressor per kind, so only once (the registry no longer changes after
  // static initialization).
  static const std::vector<std::string> kinds = [] {
    std::vector<std::string> reducible;
    for (const CompressorInfo* info : CompressorRegistry::instance().all()) {
      if (info->read(info->example)->build()->all_reducible()) reducible.push_back(info->name);
    }
    return reducible;
  }();
  return kinds;
}

namespace {

std::shared_ptr<const CompressorOptions> options_of(const CompressorConfig& c) {
  if (c.options) return c.options;
  return CompressorRegistry::instance().at(c.kind).read(json::object());
}

}  // namespace

void check_dimensions(const CompressorConfig& c, const std::vector<Eigen::Index>& sizes) {
  options_of(c)->check_dimensions(sizes, c.per_tensor);
}

std::unique_ptr<Compressor> build_compressor(const CompressorConfig& c,
                                             const std::vector<Eigen::Index>& sizes) {
  const std::shared_ptr<const CompressorOptions> options = options_of(c);
  auto make_kind = [options] { return options->build(); };
  std::unique_ptr<Compressor> chain = c.per_tensor && sizes.size() > 1
                                          ? std::make_unique<PerTensor>(make_kind, sizes)
                                          : make_kind();
  if (c.error_feedback) chain = std::make_unique<ErrorFeedback>(std::move(chain));
  return chain;
}

}  // namespace dlsim::models
