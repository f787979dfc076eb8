// What top-k and random-k share: k from a ratio or a count, their keys `ratio` and `k`,
// and their typed options (SparsifierOptions).
#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/compress/sparsifiers.hpp"

namespace dlsim::models {

std::int64_t kept_coordinates(const SparsityOptions& options, std::int64_t d) {
  if (d == 0) return 0;
  if (options.k > 0) {
    if (options.k > d)
      throw std::invalid_argument("sparsifier: k = " + std::to_string(options.k) +
                                  " exceeds the dimension " + std::to_string(d));
    return options.k;
  }
  // round, not floor: d(1 − 0.9) is 99.999… in floating point
  return std::max<std::int64_t>(1, std::llround(double(d) * (1.0 - options.ratio)));
}

std::vector<spec::Key> sparsity_keys() {
  using namespace spec;
  return {
      optional("ratio", number().ge(0).lt(1),
               "Fraction of coordinates dropped: k = max(1, round(d(1 - ratio))). Give "
               "ratio or k."),
      optional("k", integer().ge(1),
               "Coordinates kept (at most the model's parameters; not with per_tensor on a "
               "model with several tensors). Give ratio or k."),
  };
}

SparsityOptions read_sparsity(const nlohmann::json& j) {
  const std::vector<spec::Key> keys = sparsity_keys();
  const nlohmann::json ratio = read_key(j, keys, "ratio"), k = read_key(j, keys, "k");
  if (ratio.is_null() == k.is_null())
    throw CompressorConfigError(ratio.is_null() ? "ratio" : "k",
                                "give exactly one of ratio (fraction dropped) and k (kept)");
  SparsityOptions s;
  if (!ratio.is_null()) {
    s.ratio = ratio.get<double>();
  } else {
    s.k = k.get<std::int64_t>();
  }
  return s;
}

std::unique_ptr<Compressor> SparsifierOptions::build() const {
  if (kind == Kind::top_k) return std::make_unique<TopKCompressor>(sparsity);
  return std::make_unique<RandomKCompressor>(sparsity, scale_unbiased);
}

void SparsifierOptions::check_dimensions(const std::vector<Eigen::Index>& sizes,
                                         bool per_tensor) const {
  Eigen::Index total = 0;
  for (const auto size : sizes) total += size;
  if (sparsity.k > 0 && per_tensor && sizes.size() > 1)
    throw CompressorConfigError(
        "k", "k counts coordinates of the whole message, but per_tensor splits it into " +
                 std::to_string(sizes.size()) + " tensors; give ratio, or set per_tensor false");
  if (sparsity.k > total)
    throw CompressorConfigError("k", std::to_string(sparsity.k) + " exceeds the model's " +
                                         std::to_string(total) + " parameters");
}

}  // namespace dlsim::models
