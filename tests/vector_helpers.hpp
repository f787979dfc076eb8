// Test helper: a vector from a brace list, vec({1, 2, 3}).
#pragma once

#include <initializer_list>

#include "models/data/dataset.hpp"

namespace dlsim::test {

inline models::Vector vec(std::initializer_list<double> values) {
  models::Vector x(Eigen::Index(values.size()));
  Eigen::Index i = 0;
  for (double c : values) x[i++] = c;
  return x;
}

}  // namespace dlsim::test
