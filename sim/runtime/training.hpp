// What the processes of one training run share: the scenario, the objective and data,
// each worker's shard, the simulated nodes, the metrics recorder and the wall-time
// account. Built by the runner; algorithms only read it (and deposit models).
#pragma once

#include <chrono>
#include <memory>
#include <vector>

#include "models/compress/compressor.hpp"
#include "models/data/partition.hpp"
#include "models/objectives/objective.hpp"
#include "sim/engine/engine.hpp"
#include "sim/metrics/recorder.hpp"
#include "sim/runtime/node.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// Wall-clock seconds spent in the math and in compression on the engine thread (the
/// rest is engine). Compute jobs (`co_await me.compute([&] {...})`) are timed by their
/// own clock (compute_job.hpp): code that may run inside one must time itself with
/// math() and compress(), which then point at the job's own counters, never at these
/// shared fields.
struct WallAccount {
  double math_s = 0;
  double compress_s = 0;

  double& math() { return current_job_wall ? current_job_wall->discarded_s : math_s; }
  double& compress() { return current_job_wall ? current_job_wall->compress_s : compress_s; }
};

/// Adds the wall time of its scope to a counter.
class ScopedWall {
 public:
  explicit ScopedWall(double& sink) : sink_(sink), t0_(std::chrono::steady_clock::now()) {}
  ~ScopedWall() {
    sink_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
  }

 private:
  double& sink_;
  std::chrono::steady_clock::time_point t0_;
};

class NodeFailures;  // sim/runtime/node_failures.hpp

struct Training {
  const Scenario& scenario;
  const models::Objective& objective;
  const models::Dataset* train;  // null for models without data
  models::Shards shards;         // one per worker (empty without data)
  models::Vector initial;        // x0, shared by every worker
  std::vector<Node> nodes;       // workers 0..n-1, then the server if any
  Recorder& recorder;
  WallAccount& wall;
  NodeFailures* failures = nullptr;  // network.faults.fail; null: no node fails

  int workers() const { return int(scenario.workers); }

  /// Where worker `id` starts: its own vector for objectives with per-worker starts
  /// (`consensus`), otherwise the shared x0 `initial`. Algorithms start from this.
  const models::Vector& initial_for(int id) const {
    const auto starts = objective.worker_starts();
    return starts.empty() ? initial : starts[std::size_t(id)];
  }
  /// The models of `holders` holders before the first iteration (the metrics row of
  /// iteration 0): holder i starts at initial_for(i).
  std::vector<models::Vector> initial_models(int holders) const {
    std::vector<models::Vector> models;
    for (int i = 0; i < holders; ++i) models.push_back(initial_for(i));
    return models;
  }
};

/// Builds the compressor chain of a compressor read at load (`algorithm.compressor`,
/// `algorithm.downlink_compressor`) for a model with these tensor sizes
/// (models/compress/factory.hpp): one instance per message stream, since some
/// compressors keep state (error feedback's residual, lpc's adaptive range). The sizes
/// were checked at run start (k <= d, sim/run/prepare.cpp).
std::unique_ptr<models::Compressor> make_compressor(const CompressorSpec& spec,
                                                    const std::vector<models::Index>& tensor_sizes);

/// Spawns the processes of the scenario's algorithm on `engine`.
void launch_algorithm(Engine& engine, Training& training);

}  // namespace dlsim::sim
