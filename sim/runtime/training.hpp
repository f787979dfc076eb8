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
#include "sim/runtime/rank_jobs.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// Adds the wall time of its scope, times `weight`, to a counter; with no counter it
/// reads no clock at all.
class ScopedWall {
 public:
  explicit ScopedWall(double* sink, double weight = 1)
      : sink_(sink),
        weight_(weight),
        t0_(sink ? std::chrono::steady_clock::now() : Clock::time_point{}) {}
  ScopedWall(const ScopedWall&) = delete;
  ScopedWall& operator=(const ScopedWall&) = delete;
  ~ScopedWall() {
    if (sink_) *sink_ += weight_ * std::chrono::duration<double>(Clock::now() - t0_).count();
  }

 private:
  using Clock = std::chrono::steady_clock;
  double* sink_;
  double weight_;
  Clock::time_point t0_;
};

/// Wall-clock seconds spent in the math and in compression on the engine thread (the
/// rest is engine). Compute jobs (`co_await me.compute([&] {...})`) are timed by their
/// own clock (compute_job.hpp): code that may run inside one times itself with
/// time_math() and time_compress(), which then time into the job's own counters (only
/// if the job itself is timed), never into these shared fields.
///
/// A clock read costs about 50 ns here (kvm-clock), and a small model's step makes about
/// six timed calls (a gradient, an encode, decodes) of a few µs each, so without
/// --profile only one call in `sample_every` is timed (per thread, and one job in
/// `sample_every`), and counts `sample_every` times: the split is then an estimate.
struct WallAccount {
  double math_s = 0;
  double compress_s = 0;
  int sample_every = 1;  // 1: time every call (--profile)

  ScopedWall time_math() {
    return timer(current_job_wall ? &current_job_wall->discarded_s : &math_s);
  }
  ScopedWall time_compress() {
    return timer(current_job_wall ? &current_job_wall->compress_s : &compress_s);
  }

 private:
  ScopedWall timer(double* sink) {
    if (current_job_wall) return ScopedWall(current_job_wall->timed ? sink : nullptr);
    if (sample_every == 1) return ScopedWall(sink);
    if (++calls_ % std::uint64_t(sample_every) != 0) return ScopedWall(nullptr);
    return ScopedWall(sink, double(sample_every));
  }
  std::uint64_t calls_ = 0;  // on the engine thread
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
  RankJobs* ranks = nullptr;         // across ranks (rank_jobs.hpp); null: one process
  // decoder()'s chain once built.
  std::unique_ptr<models::Compressor> shared_decoder{};

  /// The scenario's compressor chain as every worker's decoder. Decoding is const and
  /// keeps no state (models/compress/compressor.hpp), so one chain serves all workers and
  /// threads: a million workers build one, not a million (per-tensor chains of a layered
  /// model are hundreds of bytes each). Built at the first call, on the engine thread.
  const models::Compressor& decoder();

  int workers() const { return int(scenario.workers); }
  /// Whether this rank runs node `id`'s math (always, in one process).
  bool local(int id) const;
  /// Whether node `id`'s math computes anything here: a model with values (not
  /// `profile`), on the rank that owns the node. Otherwise its vectors stay empty.
  bool computes(int id) const { return objective.has_math() && local(id); }

  /// Where worker `id` starts: its own vector for objectives with per-worker starts
  /// (`consensus`), otherwise the shared x0 `initial`. Algorithms start from this. A
  /// node another rank owns starts empty: its math runs there (rank_jobs.hpp).
  const models::Vector& initial_for(int id) const { return local(id) ? start_of(id) : elsewhere(); }
  /// The shared x0 `initial` for a node this rank owns (centralized algorithms' replicas
  /// and servers start from it), empty for another rank's node.
  const models::Vector& shared_start_for(int id) const { return local(id) ? initial : elsewhere(); }
  /// The models of `holders` holders before the first iteration (the metrics row of
  /// iteration 0), on every rank: holder i starts where worker i does.
  std::vector<models::Vector> initial_models(int holders) const {
    std::vector<models::Vector> models;
    for (int i = 0; i < holders; ++i) models.push_back(start_of(i));
    return models;
  }

 private:
  static const models::Vector& elsewhere() {  // another rank's node: no state here
    static const models::Vector empty;
    return empty;
  }
  const models::Vector& start_of(int id) const {
    const auto starts = objective.worker_starts();
    return starts.empty() ? initial : starts[std::size_t(id)];
  }
};

inline bool Training::local(int id) const {
  return ranks == nullptr || ranks->placement().local(id);
}

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
