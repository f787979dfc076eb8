// The typed options of the built-in generated data sources, for the tests that read a
// loaded scenario's data options (DataSpec::options_as); each source reads and uses its
// own in models/data/kinds/<source>.cpp.
#pragma once

#include <string>

#include "models/data/registry.hpp"
#include "models/data/sources.hpp"

namespace dlsim::models {

/// synthetic-regression: b = A w* + noise (sources.hpp), optionally shaped by a preset.
struct SyntheticRegressionSource final : DataOptions {
  std::string preset = "none";
  SyntheticRegressionOptions options;

  DataSplit load(std::mt19937_64& rng) const override;
  DataShape shape() const override;
  std::optional<DataMemory> memory() const override;
};

/// synthetic-classification: Gaussian clusters (sources.hpp).
struct SyntheticClassificationSource final : DataOptions {
  SyntheticClassificationOptions options;

  DataSplit load(std::mt19937_64& rng) const override;
  DataShape shape() const override;
  std::optional<DataMemory> memory() const override;
};

/// The in-memory size of `samples` generated rows of `features` doubles plus a label.
DataMemory generated_memory(Index samples, Index features);

}  // namespace dlsim::models
