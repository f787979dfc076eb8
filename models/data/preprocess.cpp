// Preprocessing of a loaded data set (docs/design.md §4 `data.test_fraction`, `data.normalize`).
//   split: a seeded random round(fraction·N) rows (at most N − 1) move to the test set;
//          both sets keep the original row order.
//   standard: x ← (x − μ)/σ, minmax: x ← (x − min)/(max − min), with μ, σ (population),
//          min, max from the training set only; constant columns are only centred
//          (standard) or become 0 (minmax).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "models/data/sources.hpp"
#include "rng/shuffle.hpp"

namespace dlsim::models {

namespace {

Dataset take_rows(const Dataset& data, const std::vector<Index>& rows) {
  Dataset out;
  out.features = data.features.select_rows(rows);
  out.labels = data.labels(rows);
  out.classes = data.classes;
  return out;
}

// x ← (x − shift) ⊘ scale, column by column.
void transform(Matrix& x, const Eigen::RowVectorXd& shift, const Eigen::RowVectorXd& scale) {
  x = ((x.rowwise() - shift).array().rowwise() / scale.array()).matrix();
}

}  // namespace

void split_test_fraction(DataSplit& split, double fraction, std::mt19937_64& rng) {
  if (!(fraction >= 0 && fraction < 1)) {
    throw std::invalid_argument("test_fraction must be in [0, 1)");
  }
  if (fraction == 0) return;
  if (split.test) throw std::invalid_argument("test_fraction given but a test set already exists");
  const Index n = split.train.size();
  const Index moved = std::min<Index>(Index(std::llround(fraction * double(n))), n - 1);
  if (moved <= 0) return;

  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index(0));
  rng::shuffle(order.begin(), order.end(), rng);
  std::vector<Index> test(order.begin(), order.begin() + moved);
  std::vector<Index> train(order.begin() + moved, order.end());
  std::sort(test.begin(), test.end());
  std::sort(train.begin(), train.end());

  split.test = take_rows(split.train, test);
  split.train = take_rows(split.train, train);
}

bool channel_map_is_one(const std::vector<double>& mean, const std::vector<double>& std) {
  return !mean.empty() && !std.empty() &&
         std::all_of(mean.begin(), mean.end(), [&](double m) { return m == mean.front(); }) &&
         std::all_of(std.begin(), std.end(), [&](double s) { return s == std.front(); });
}

void normalize_channels(DataSplit& split, Index channels, std::vector<double> mean,
                        std::vector<double> std) {
  const FeatureMatrix& features = split.train.features;
  if (channels < 1 || features.cols() % channels != 0)
    throw std::invalid_argument("normalize: " + std::to_string(features.cols()) +
                                " features do not split into " + std::to_string(channels) +
                                " channels");
  if (features.rows() == 0) throw std::invalid_argument("normalize: empty training set");
  FeatureMatrix* test = split.test ? &split.test->features : nullptr;
  if (!channel_map_is_one(mean, std)) {  // statistics, or a map per channel: on the doubles
    split.train.features.decode_codes();
    if (test) test->decode_codes();
  }
  const Index pixels = features.cols() / channels;
  if (mean.empty()) {
    const Matrix& train = split.train.features.owned();
    const double count = double(train.rows()) * double(pixels);
    for (Index c = 0; c < channels; ++c) {
      const auto block = train.middleCols(c * pixels, pixels).array();
      const double m = block.sum() / count;
      const double sd = std::sqrt((block - m).square().sum() / count);
      mean.push_back(m);
      std.push_back(sd > 0 ? sd : 1.0);
    }
  }
  const auto apply = [&](FeatureMatrix& f) {
    if (f.is_coded()) {  // one map for every channel: the 256 values go through it
      f.shift_scale_codes(mean.front(), std.front());
      return;
    }
    Matrix& x = f.owned();
    for (Index c = 0; c < channels; ++c) {
      auto block = x.middleCols(c * pixels, pixels).array();
      block = (block - mean[std::size_t(c)]) / std[std::size_t(c)];
    }
  };
  apply(split.train.features);
  if (test) apply(*test);
}

void normalize(DataSplit& split, const std::string& kind) {
  if (kind != "none" && kind != "standard" && kind != "minmax") {
    throw std::invalid_argument("unknown normalize kind \"" + kind +
                                "\" (expected none, standard or minmax)");
  }
  if (kind == "none") return;
  Matrix& train = split.train.features.owned();
  if (train.rows() == 0) throw std::invalid_argument("normalize: empty training set");
  if (split.test && split.test->feature_count() != train.cols()) {
    throw std::invalid_argument("normalize: train and test sets have different feature counts");
  }

  const Eigen::RowVectorXd min = train.colwise().minCoeff();
  const Eigen::RowVectorXd max = train.colwise().maxCoeff();
  const Eigen::Array<bool, 1, Eigen::Dynamic> constant = min.array() == max.array();
  Eigen::RowVectorXd shift;
  Eigen::RowVectorXd scale;
  if (kind == "standard") {
    const Eigen::RowVectorXd mean = train.colwise().mean();
    shift = constant.select(min, mean);  // exact 0 on train for constant columns
    const Eigen::RowVectorXd sd =
        ((train.rowwise() - shift).array().square().colwise().sum() / double(train.rows()))
            .sqrt()
            .matrix();
    scale = constant.select(Eigen::RowVectorXd::Ones(sd.size()), sd);
  } else {  // minmax; a constant column maps to 0
    shift = min;
    scale = constant.select(Eigen::RowVectorXd::Ones(min.size()), max - min);
  }
  transform(train, shift, scale);
  if (split.test) transform(split.test->features.owned(), shift, scale);
}

}  // namespace dlsim::models

namespace dlsim::models {

Dataset sample_rows(const Dataset& data, Index samples, std::mt19937_64& rng) {
  if (samples < 1) throw std::invalid_argument("sample size must be >= 1");
  const Index n = data.size();
  if (samples >= n) return data;
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index(0));
  rng::shuffle(order.begin(), order.end(), rng);
  order.resize(std::size_t(samples));
  std::sort(order.begin(), order.end());
  return take_rows(data, order);
}

void subsample_train(DataSplit& split, Index samples, std::mt19937_64& rng) {
  if (samples < split.train.size()) split.train = sample_rows(split.train, samples, rng);
}

}  // namespace dlsim::models
