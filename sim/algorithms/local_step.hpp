// The local SGD step every algorithm shares (docs/algorithms.md §3 step 4):
//   d = g + wd·x;  m ← μm + d;
//   x ← x − η(d + μm)  (Nesterov)   or   x ← x − ηm   (with μ = 0: x − ηd);
//   x ← prox_{ηR}(x)   (soft-thresholding when the objective has an l1 term).
// g is the objective's gradient, its l2 term included; η is the iteration's step size
// from the learning-rate schedule (step_size_at in lr_schedule.hpp; local_step_at below).
#pragma once

#include "models/cpu/elementwise.hpp"
#include "models/objectives/objective.hpp"
#include "sim/algorithms/lr_schedule.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// One local step with step size `eta` (momentum and weight decay from `a`).
inline void local_step(models::Vector& x, models::Vector& m, const models::Vector& g, double eta,
                       const AlgorithmSpec& a, const models::Objective& objective) {
  if (x.size() == 0) return;  // no math
  if (m.size() != x.size()) m = models::Vector::Zero(x.size());
  const double mu = a.momentum, wd = a.weight_decay;
  if (mu == 0) {
    models::elementwise::descend(x.data(), eta, g.data(), wd, x.size());  // x -= η(g + wd·x)
  } else {
    m = mu * m + g + wd * x;
    if (a.nesterov)
      x -= eta * (g + wd * x + mu * m);
    else
      x -= eta * m;
  }
  objective.prox(x, eta);
}

/// The local step of iteration k (0-based) of a run of `total_iterations`: the step size
/// follows `a.schedule` (step_size_at).
inline void local_step_at(std::int64_t k, std::int64_t total_iterations, models::Vector& x,
                          models::Vector& m, const models::Vector& g, const AlgorithmSpec& a,
                          const models::Objective& objective) {
  if (x.size() == 0) return;  // no math: not even the schedule (a million workers a round)
  local_step(x, m, g, step_size_at(a, k, total_iterations), a, objective);
}

}  // namespace dlsim::sim
