// synthetic-classification: Gaussian clusters (sources.hpp). With centres drawn as
// N(0, (s²/d) I_d), the expected squared distance between two centres is 2s², whatever d.
#include <cmath>
#include <stdexcept>

#include "models/data/sources.hpp"
#include "rng/distributions.hpp"

namespace dlsim::models {

Dataset synthetic_classification(const SyntheticClassificationOptions& options,
                                 std::mt19937_64& rng) {
  const Index n = options.samples, d = options.features;
  const int classes = options.classes;
  if (n < 1) throw std::invalid_argument("synthetic classification: samples must be >= 1");
  if (d < 1) throw std::invalid_argument("synthetic classification: features must be >= 1");
  if (classes < 2) throw std::invalid_argument("synthetic classification: classes must be >= 2");
  if (!(options.separation >= 0))
    throw std::invalid_argument("synthetic classification: separation must be >= 0");

  rng::Normal normal(0.0, 1.0);
  const double centre_sd = options.separation / std::sqrt(double(d));
  Matrix centres(classes, d);
  for (Index c = 0; c < classes; ++c)
    for (Index k = 0; k < d; ++k) centres(c, k) = centre_sd * normal(rng);

  rng::UniformInt<int> label(0, classes - 1);
  Dataset data;
  data.features.owned().resize(n, d);
  data.labels.resize(n);
  for (Index i = 0; i < n; ++i) {
    const int c = label(rng);
    data.labels(i) = c;
    for (Index k = 0; k < d; ++k) data.features.owned()(i, k) = centres(c, k) + normal(rng);
  }
  data.classes = classes;
  return data;
}

}  // namespace dlsim::models
