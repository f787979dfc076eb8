// Fitting labels to a classifier (docs/design.md §4 `model`): logistic regression wants
// y ∈ {−1, +1}, softmax and mlp want class indices 0..C−1.
#pragma once

#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// Labels → ±1 on both splits. With `positive_classes`, y = +1 exactly when the label is
/// one of them; without, the labels must all be in {−1, +1} or all in {0, 1} (0 → −1).
/// Sets classes = 2. Throws std::invalid_argument naming the offending label.
void binarize_labels(DataSplit& split, const std::vector<double>& positive_classes);

/// Labels → class indices. Data that already has classes (classes > 0) is checked;
/// otherwise the distinct integer label values of the training set, in increasing order,
/// become classes 0..C−1 (so −1/+1 and 1..K both work), and the test labels must be
/// among them. Throws std::invalid_argument for non-integer labels or fewer than 2 classes.
void index_classes(DataSplit& split);

/// `label` as a class index in [0, classes); throws std::invalid_argument, naming the
/// model `who`, when it is not one.
int class_index(double label, int classes, const char* who);

}  // namespace dlsim::models
