// Test helper for initial models: checks that a parameter vector holds, tensor after
// tensor, independent U(−1/√fan_in, 1/√fan_in) draws (PyTorch's default initialization).
#pragma once

#include <catch2/catch.hpp>

#include <cmath>
#include <utility>
#include <vector>

#include "models/objectives/objective.hpp"

namespace dlsim::test {

/// `tensors` lists (size, fan_in) in layout order and must cover `w`. Each tensor must lie
/// inside its bound b with no zero entry; a tensor of 100 or more entries must also have
/// its largest magnitude near b, mean near 0 and mean square near b²/3 (5 standard errors:
/// b/√(3n) for the mean, 0.9/√n relative for the mean square; the largest magnitude stays
/// below (1 − 12/n)·b with probability e^−12).
inline void check_torch_init(const models::Vector& w,
                             const std::vector<std::pair<models::Index, models::Index>>& tensors) {
  models::Index offset = 0;
  for (const auto& [size, fan_in] : tensors) {
    const auto t = w.segment(offset, size);
    const double bound = 1.0 / std::sqrt(double(fan_in)), n = double(size);
    INFO("tensor at offset " << offset << " of size " << size << ", fan-in " << fan_in);
    CHECK(t.cwiseAbs().maxCoeff() < bound);
    CHECK(t.cwiseAbs().minCoeff() > 0);
    offset += size;
    if (size < 100) continue;
    CHECK(t.cwiseAbs().maxCoeff() > (1 - 12 / n) * bound);
    CHECK(std::abs(t.mean()) < 5 * bound / std::sqrt(3 * n));
    CHECK(t.squaredNorm() / n == Approx(bound * bound / 3).epsilon(5 * 0.9 / std::sqrt(n)));
  }
  CHECK(offset == w.size());
}

}  // namespace dlsim::test
