#include "models/data/labels.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

namespace dlsim::models {

namespace {

std::string text(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

void binarize(Dataset& data, const std::vector<double>& positive, const char* which) {
  if (!positive.empty()) {
    for (double& y : data.labels)
      y = std::find(positive.begin(), positive.end(), y) != positive.end() ? 1.0 : -1.0;
  } else {
    const auto& y = data.labels.array();
    if (((y == 0.0) || (y == 1.0)).all()) {
      data.labels = (2.0 * y - 1.0).matrix();
    } else if (!((y == -1.0) || (y == 1.0)).all()) {
      for (const double v : data.labels)
        if (v != 0 && v != 1 && v != -1)
          throw std::invalid_argument(std::string(which) + " label " + text(v) +
                                      ": logistic regression needs labels in {-1, +1} or {0, 1}; "
                                      "set model.positive_classes to binarize multiclass data");
      throw std::invalid_argument(std::string(which) +
                                  " labels mix {0, 1} and {-1, +1}; use one convention");
    }
  }
  data.classes = 2;
}

}  // namespace

void binarize_labels(DataSplit& split, const std::vector<double>& positive_classes) {
  binarize(split.train, positive_classes, "training");
  if ((split.train.labels.array() > 0).all() || (split.train.labels.array() < 0).all())
    throw std::invalid_argument("every training label falls into one class after binarizing");
  if (split.test) binarize(*split.test, positive_classes, "test");
}

void index_classes(DataSplit& split) {
  if (split.train.classes > 0) {
    const int c = split.train.classes;
    for (const Dataset* d : {&split.train, split.test ? &*split.test : nullptr}) {
      if (d && ((d->labels.array() < 0) || (d->labels.array() >= c)).any())
        throw std::invalid_argument("labels outside 0.." + std::to_string(c - 1));
    }
    return;
  }
  std::map<double, int> index;
  for (const double v : split.train.labels) {
    if (v != std::floor(v))
      throw std::invalid_argument("training label " + text(v) +
                                  " is not an integer class label (softmax and mlp classify)");
    index.emplace(v, 0);
  }
  if (index.size() < 2)
    throw std::invalid_argument("the training labels hold only one class; a classifier needs 2");
  int next = 0;
  for (auto& [value, k] : index) k = next++;
  const auto encode = [&](Dataset& d, const char* which) {
    for (double& v : d.labels) {
      const auto it = index.find(v);
      if (it == index.end())
        throw std::invalid_argument(std::string(which) + " label " + text(v) +
                                    " does not occur in the training set");
      v = it->second;
    }
    d.classes = next;
  };
  encode(split.train, "training");
  if (split.test) encode(*split.test, "test");
}

int class_index(double label, int classes, const char* who) {
  const int c = int(label);
  if (double(c) != label || c < 0 || c >= classes)
    throw std::invalid_argument(std::string(who) + ": label " + std::to_string(label) +
                                " is not a class index in [0, " + std::to_string(classes) + ")");
  return c;
}

}  // namespace dlsim::models
