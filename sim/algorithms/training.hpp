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

/// Wall-clock seconds spent in the math and in compression (the rest is engine).
struct WallAccount {
  double math_s = 0;
  double compress_s = 0;
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

struct Training {
  const Scenario& scenario;
  const models::Objective& objective;
  const models::Dataset* train;  // null for models without data
  models::Shards shards;         // one per worker (empty without data)
  models::Vector initial;        // x0, shared by every worker
  std::vector<Node> nodes;       // workers 0..n-1, then the server if any
  Recorder& recorder;
  WallAccount& wall;

  int workers() const { return int(scenario.workers); }
};

/// Builds the compressor of `algorithm.compressor` (one instance per sender: some
/// compressors keep state, e.g. error feedback).
std::unique_ptr<models::Compressor> make_compressor(const CompressorSpec& spec);

/// Spawns the processes of the scenario's algorithm on `engine`.
void launch_algorithm(Engine& engine, Training& training);

}  // namespace dlsim::sim
