// Learning-rate schedules (docs/algorithms.md §3 step 4; issue 7): the step size η_k of
// iteration k (0-based) of a run of T iterations, from `algorithm.schedule`:
//   constant:  η_k = η
//   step:      η_k = η · factor^{#{j : k ≥ M_j}},   M_j = round(m_j · T)
//              (milestones m_j are increasing fractions of the run in (0, 1))
//   warm-up:   η_k ← η_k · (k + 1) / W  for k < W   (linear from η/W up to η; the first
//              step is not wasted), W = round(warmup · T) for warmup < 1, else warmup
//              iterations (an integer).
// Goyal et al. 2017 ("Accurate, Large Minibatch SGD") use this warm-up and step decay.
// T is the run's iteration limit (stop.iterations / stop.epochs); fractional milestones
// and warm-ups need it, which to_scenario.cpp checks.
#pragma once

#include <cmath>
#include <cstdint>

#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// The iteration a fraction of a run of `total_iterations` iterations falls on.
inline std::int64_t schedule_iteration(double fraction, std::int64_t total_iterations) {
  return std::int64_t(std::llround(fraction * double(total_iterations)));
}

/// Iterations of linear warm-up W (0: none).
inline std::int64_t warmup_iterations(const AlgorithmSpec::Schedule& schedule,
                                      std::int64_t total_iterations) {
  if (schedule.warmup >= 1) return std::int64_t(schedule.warmup);
  return schedule_iteration(schedule.warmup, total_iterations);
}

/// The step size of iteration `iteration` (0-based) of a run of `total_iterations`.
inline double step_size_at(const AlgorithmSpec& algorithm, std::int64_t iteration,
                           std::int64_t total_iterations) {
  const AlgorithmSpec::Schedule& schedule = algorithm.schedule;
  double eta = algorithm.step_size;
  if (schedule.kind == "step") {
    for (double milestone : schedule.milestones) {
      if (iteration >= schedule_iteration(milestone, total_iterations)) eta *= schedule.factor;
    }
  }
  const std::int64_t warmup = warmup_iterations(schedule, total_iterations);
  if (iteration < warmup) eta *= double(iteration + 1) / double(warmup);
  return eta;
}

}  // namespace dlsim::sim
