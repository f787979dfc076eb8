// Data sources (DESIGN.md §4 `data.source`) and the preprocessing applied to them.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "models/data/dataset.hpp"

namespace dlsim::models {

struct SyntheticRegressionOptions {
  Index samples = 1000;
  Index features = 20;
  double noise = 0.1;      // standard deviation of the additive label noise
  double condition = 1.0;  // condition number of the feature covariance
};

/// b = A w* + noise·ε with rows of A ~ N(0, Σ), Σ diagonal with eigenvalues spread
/// geometrically from 1 down to 1/condition, w* ~ N(0, I). Deterministic in `rng`.
Dataset synthetic_regression(const SyntheticRegressionOptions& options, std::mt19937_64& rng);

/// Reads a CSV file: a header row, the label in `label_column`, every other column a
/// numeric feature. Throws DataError("file:line", ...) on anything malformed.
Dataset load_csv(const std::string& path, const std::string& label_column);

/// Moves a seeded random `fraction` of `split.train` into `split.test`.
void split_test_fraction(DataSplit& split, double fraction, std::mt19937_64& rng);

/// none | standard (zero mean, unit variance) | minmax ([0,1]); statistics come from
/// the training split only and are applied to both splits. Constant columns are left
/// centred (standard) or at 0 (minmax).
void normalize(DataSplit& split, const std::string& kind);

}  // namespace dlsim::models
