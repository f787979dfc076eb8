// estimate_smoothness (smoothness.hpp): power iteration on gradient differences.
#include "sim/algorithms/smoothness.hpp"

#include <cmath>
#include <numeric>
#include <vector>

namespace dlsim::sim {

double estimate_smoothness(const models::Objective& f, const models::Dataset& data,
                           int iterations) {
  const models::Index d = f.dimension();
  std::vector<models::Index> rows(std::size_t(data.size()));
  std::iota(rows.begin(), rows.end(), models::Index(0));
  const models::Vector zero = models::Vector::Zero(d);
  models::Vector g0, g, v = models::Vector::Ones(d).normalized();
  f.gradient(zero, data, rows, g0);
  const double epsilon = 1e-4;  // exact for quadratics; O(ε²) relative otherwise
  double lambda = 0;
  for (int it = 0; it < iterations; ++it) {
    f.gradient(epsilon * v, data, rows, g);
    const models::Vector hv = (g - g0) / epsilon;
    const double next = v.dot(hv);  // Rayleigh quotient of the unit vector v
    const double norm = hv.norm();
    if (norm == 0) return next;
    v = hv / norm;
    const bool settled = it > 0 && std::abs(next - lambda) <= 1e-9 * std::abs(next);
    lambda = next;
    if (settled) break;
  }
  return lambda;
}

}  // namespace dlsim::sim
