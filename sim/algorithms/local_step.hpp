// The local SGD step every algorithm shares (ALGORITHMS.md §3 step 4):
//   d = g + wd·x;  m ← μm + d;
//   x ← x − η(d + μm)  (Nesterov)   or   x ← x − ηm   (with μ = 0: x − ηd);
//   x ← prox_{ηR}(x)   (soft-thresholding when the objective has an l1 term).
// g is the objective's gradient, its l2 term included.
#pragma once

#include "models/objectives/objective.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

inline void local_step(models::Vector& x, models::Vector& m, const models::Vector& g,
                       const AlgorithmSpec& a, const models::Objective& objective) {
  if (x.size() == 0) return;  // no math
  if (m.size() != x.size()) m = models::Vector::Zero(x.size());
  const double eta = a.step_size, mu = a.momentum, wd = a.weight_decay;
  if (mu == 0) {
    x -= eta * (g + wd * x);
  } else {
    m = mu * m + g + wd * x;
    if (a.nesterov)
      x -= eta * (g + wd * x + mu * m);
    else
      x -= eta * m;
  }
  objective.prox(x, eta);
}

}  // namespace dlsim::sim
