// How long a node's math takes in simulated time (docs/design.md §4 `compute`):
//   t = (flops / speed + seconds) · per_worker[i] · J,   J = exp(σZ − σ²/2), Z ~ N(0,1)
// J is lognormal jitter with mean 1 (σ = `jitter`, 0 = none), drawn from the node's
// own stream so results do not depend on the order in which nodes compute.
// It also sums the wall-clock time of the compute jobs (compute_job.hpp) it converts.
#pragma once

#include <cmath>
#include <vector>

#include "models/objectives/objective.hpp"
#include "rng/distributions.hpp"
#include "sim/engine/rng.hpp"
#include "sim/engine/units.hpp"

namespace dlsim::sim {

class ComputeModel {
 public:
  /// `factors` has one entry per node (missing entries count as 1).
  ComputeModel(Flops speed, std::vector<double> factors, double jitter, std::uint64_t seed,
               int nodes)
      : speed_(speed), factors_(std::move(factors)), jitter_(jitter) {
    factors_.resize(nodes, 1.0);
    // A stream per node only when there is jitter to draw (2.5 KB each: a million
    // workers would otherwise hold 2.5 GB of unused generators).
    if (jitter_ > 0)
      for (int i = 0; i < nodes; ++i) rngs_.push_back(make_rng(seed, "compute-jitter", i));
  }

  /// Wall-clock totals over every compute job, summed on the engine thread.
  struct JobTotals {
    double job_s = 0;       // thread time inside the jobs' callables
    double compress_s = 0;  // of which compression
    std::uint64_t jobs = 0;
  };
  void record_job(double job_s, double compress_s) {
    totals_.job_s += job_s;
    totals_.compress_s += compress_s;
    ++totals_.jobs;
  }
  const JobTotals& job_totals() const { return totals_; }
  /// Time one compute job in this many (1: all, for --profile; compute_job.hpp).
  void set_wall_sample_every(int every) { wall_sample_every_ = every; }
  int wall_sample_every() const { return wall_sample_every_; }

  SimTime duration(int node, const models::ComputeCost& cost) {
    double seconds = (cost.flops / speed_ + cost.seconds) * factors_[node];
    if (jitter_ > 0) {
      seconds *= std::exp(jitter_ * rng::Normal()(rngs_[node]) - 0.5 * jitter_ * jitter_);
    }
    return SimTime::from_seconds(seconds);
  }

 private:
  Flops speed_;
  std::vector<double> factors_;
  double jitter_;
  std::vector<Rng> rngs_;
  JobTotals totals_;
  int wall_sample_every_ = 1;
};

}  // namespace dlsim::sim
