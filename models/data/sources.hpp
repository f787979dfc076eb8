// Data sources (docs/design.md §4 `data.source`) and the preprocessing applied to them.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

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

struct SyntheticClassificationOptions {
  Index samples = 1000;
  Index features = 20;
  int classes = 2;
  double separation = 2.0;  // class centres ~ N(0, separation²/d · I): mean distance √2·separation
};

/// Gaussian clusters: centres μ_c ~ N(0, (separation²/d) I_d), labels uniform in 0..C−1,
/// x_i = μ_{y_i} + ε_i with ε_i ~ N(0, I_d). Draw order: centres, then per sample its
/// label and its noise. Deterministic in `rng`; sets classes = C.
Dataset synthetic_classification(const SyntheticClassificationOptions& options,
                                 std::mt19937_64& rng);

/// Reads a CSV file: a header row, the label in `label_column`, every other column a
/// numeric feature. Throws DataError("file:line", ...) on anything malformed.
Dataset load_csv(const std::string& path, const std::string& label_column);

/// A libsvm/svmlight file parsed but not yet densified: one (index, value) list per row.
struct LibsvmFile {
  std::string path;
  std::vector<std::vector<std::pair<Index, double>>> rows;  // 0-based feature indices
  Vector labels;
  Index max_feature = 0;  // 1 + the largest 0-based index seen
};

/// Parses `label idx:value ...` lines with 1-based, strictly increasing indices; blank
/// lines and `#` comments are skipped. Throws DataError("file:line", ...) when malformed.
LibsvmFile parse_libsvm(const std::string& path);

/// The dense rows × `features` matrix of a parsed file (absent entries are 0). Dense on
/// purpose: the objectives' batch products are dense GEMMs, and the data sets dlsim is
/// meant for (a9a, covtype, YearPredictionMSD-sized) fit in memory densely.
Dataset densify(const LibsvmFile& file, Index features);

/// Fashion-MNIST from the IDX gzip files in `dir` (train-images-idx3-ubyte.gz, ...):
/// the official 60,000 training and 10,000 test images, 784 pixels scaled to [0, 1],
/// labels 0..9, the features stored as `storage` (float32: written as floats directly;
/// float64 with `byte_codes`: the pixel bytes and a table of their 256 values,
/// FeatureMatrix::of_codes). Throws DataError(file, ...) for a missing or malformed file.
DataSplit load_fashion_mnist(const std::string& dir, Storage storage = Storage::float64,
                             bool byte_codes = false);

/// YearPredictionMSD from the UCI file `YearPredictionMSD.txt` (no header; the year, then 90
/// features per line): the first `train_rows` rows train, the rest test (the official split:
/// train_rows = 463,715 of 515,345). Throws DataError("file:line", ...) when malformed.
DataSplit load_year_prediction_msd(const std::string& path, Index train_rows);
/// CIFAR-10, binary version, from the folder `dir` (cifar-10-batches-bin):
/// data_batch_1.bin .. data_batch_5.bin for training, test_batch.bin for test, each any
/// whole number of 3,073-byte records (label 0..9, then the R, G, B planes of 32×32).
/// Rows are 3,072 pixels in C×H×W order scaled to [0, 1], stored as `storage` (as
/// load_fashion_mnist does: float32 written as floats directly, float64 with `byte_codes`
/// as the pixel bytes and a table of their values). Throws DataError(file, ...) for a
/// missing, truncated or malformed file.
DataSplit load_cifar10(const std::string& dir, Storage storage = Storage::float64,
                       bool byte_codes = false);

/// Keeps a seeded random `samples` rows of the training set (in their original order).
void subsample_train(DataSplit& split, Index samples, std::mt19937_64& rng);

/// A seeded random subset of `samples` rows of `data` (all of it when samples ≥ size).
Dataset sample_rows(const Dataset& data, Index samples, std::mt19937_64& rng);

/// Moves a seeded random `fraction` of `split.train` into `split.test`.
void split_test_fraction(DataSplit& split, double fraction, std::mt19937_64& rng);

/// Images stored channel-major with `channels` channels: every pixel of channel c becomes
/// (x − mean[c]) / std[c] (torchvision's Normalize). Empty `mean` and `std`: the mean and
/// population standard deviation of all the channel's values in the training split (a
/// constant channel is only centred). Applied to both splits. Byte-coded storage stays
/// coded when one map serves every channel (channel_map_is_one): the table's 256 values
/// go through it, the same doubles as on float64 storage; otherwise it is decoded first.
void normalize_channels(DataSplit& split, Index channels, std::vector<double> mean,
                        std::vector<double> std);

/// Whether normalize_channels with these means and deviations maps every value through one
/// (x − m) / s: both given, every mean equal and every deviation equal (one channel, or
/// torchvision's usual 0.5 and 0.5 for all three).
bool channel_map_is_one(const std::vector<double>& mean, const std::vector<double>& std);

/// none | standard (zero mean, unit variance) | minmax ([0,1]); statistics come from
/// the training split only and are applied to both splits. Constant columns are left
/// centred (standard) or at 0 (minmax).
void normalize(DataSplit& split, const std::string& kind);

}  // namespace dlsim::models
