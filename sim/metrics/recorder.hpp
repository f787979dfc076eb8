// Turns the models that algorithms deposit at the end of their iterations into
// metrics rows, and decides when the run stops (docs/design.md §4 `metrics`, `stop`).
//
// An algorithm has `holders` models: 1 for centralized runs (the server's model or a
// replica every worker shares), n for decentralized ones. Each holder deposits its
// model after finishing iteration k (k = completed iterations, 1-based); when all
// holders have deposited k, iteration k is complete at that simulated instant.
// A row is written for iteration 0 (the initial model), for every scheduled point,
// and for the last complete iteration when the run stops.
// With metrics.per_worker every row is followed by each holder's own metrics
// (Evaluator::evaluate_each, timed with the rest) for the observers' on_workers().
//
// In the background (RecorderPlan::background, metrics_in_background() in
// sim/run/runner.hpp) a row's models are evaluated while the simulation goes on. Its
// passes are jobs (Evaluator::prepare: chunks of rows, summed in chunk order): beside the
// phases on the engine's job pool (JobPool::post_beside: a helper without a phase's job
// takes the next chunk) when there is one, else one after another on the recorder's row
// thread (row_thread.hpp: one for the run). The same chunks, the same sums: the same values. One
// row is evaluated at a time; it reaches the observers, on the simulation's thread and in order,
// once its evaluation is done: when a later iteration completes, at the next row (which waits for
// it, and evaluates the chunks no helper has taken yet itself), or at finish(). The run's last row
// (its last iteration, or the one finish() writes) has nothing left to overlap with and is
// evaluated inline, on the evaluator's pool.
#pragma once

#include <chrono>
#include <cstdint>
#include <exception>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <thread>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/engine/rank_group.hpp"
#include "sim/metrics/evaluator.hpp"
#include "sim/metrics/observer.hpp"
#include "sim/metrics/row_thread.hpp"
#include "sim/network/network.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

struct RecorderPlan {
  int holders = 1;
  std::optional<std::int64_t> max_iterations;  // from stop.iterations / stop.epochs
  // Epoch of iteration k = k·samples_per_iteration / train_samples (0: no data).
  std::int64_t samples_per_iteration = 0;
  std::int64_t train_samples = 0;
  MetricsSpec metrics;
  StopSpec stop;
  // Evaluate rows beside the simulation (header comment); the run's last row, with nothing
  // left to overlap, is evaluated inline on the evaluator's pool.
  bool background = false;
};

class Recorder {
 public:
  using Clock = std::chrono::steady_clock;

  Recorder(Engine& engine, const Network& network, const Evaluator& evaluator, RecorderPlan plan,
           std::vector<MetricsObserver*> observers, Clock::time_point start);
  // Not copied or moved: last_found_ points into this object's own map.
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;
  /// Takes back (or waits for) a row still in evaluation: a run that ends by an exception.
  ~Recorder();

  /// Across ranks (sim/engine/rank_group.hpp): holder h's model is real only on the rank
  /// that owns worker h. Each row gathers the models on rank 0; the ranks share the
  /// evaluation's passes (Evaluator::evaluate_across), rank 0 tells its observers, and
  /// every rank gets the values, so all stop alike.
  void set_ranks(RankGroup* ranks, WorkerPlacement placement) {
    ranks_ = ranks;
    placement_ = placement;
  }

  /// Iterations the algorithms run (INT64_MAX when no stop criterion bounds them).
  std::int64_t iteration_limit() const;
  /// Whether holders must deposit their model for iteration k.
  bool wants(std::int64_t k) const;
  /// Holder `holder` finished iteration k with model x (copied when wanted).
  void deposit(int holder, std::int64_t k, const models::Vector& x);
  /// Holder `holder` stopped (a failed node) after depositing iteration `last`: later
  /// iterations complete without it and their rows average over the other holders.
  void retire(int holder, std::int64_t last);
  /// Writes the row of iteration 0.
  void start(std::vector<models::Vector> initial);
  /// Writes the row of the last complete iteration if it has none yet.
  void finish();

  const std::optional<MetricsRow>& last_row() const { return last_row_; }
  /// Seconds of the simulation's wall time spent on metrics: evaluating them, or in the
  /// background waiting for an evaluation.
  double wall_metrics_s() const { return wall_metrics_s_; }
  /// In the background: seconds spent evaluating beside the simulation, on pool helpers or
  /// the metrics thread (else 0; the parts of a row the simulation's thread evaluated
  /// itself while waiting for it count in wall_metrics_s() only).
  double background_metrics_s() const { return background_metrics_s_; }

 private:
  struct Snapshot {
    int count = 0;
    std::vector<models::Vector> models;
  };
  bool scheduled(std::int64_t k) const;
  // Whether `holder` deposits iteration k (it has not retired before k); how many do, and
  // the models of those (retired holders left out).
  bool present(std::size_t holder, std::int64_t k) const;
  int holders_at(std::int64_t k) const;
  std::vector<models::Vector> present_models(std::int64_t k,
                                             std::vector<models::Vector>&& models) const;
  // The holders (worker ids) present at iteration k, in order: present_models()'s owners.
  std::vector<int> present_holders(std::int64_t k) const;
  std::optional<double> epoch(std::int64_t k) const;
  void complete(std::int64_t k, std::vector<models::Vector>&& models);
  // When and at which counters an iteration completed.
  struct Stamp {
    std::int64_t iteration;
    SimTime time;
    NetworkCounters counters;
  };
  Stamp stamp(std::int64_t k) const { return {k, engine_.now(), network_.counters()}; }
  // Across ranks, rank 0 fills in the other ranks' holders' models (empty here).
  void emit(const Stamp& at, std::vector<models::Vector>& models);
  // The row of `at` with its values, to the observers.
  void tell(const Stamp& at, const Evaluation& e, const std::vector<WorkerMetrics>& each,
            const std::vector<models::Vector>& models, std::span<const int> holders);
  // A row's values, and how long they took (in the background: on other threads than the
  // simulation's).
  struct Evaluated {
    Evaluation e;
    std::vector<WorkerMetrics> each;
    double seconds = 0;
  };
  // A row evaluated in the background: its passes as jobs (Evaluator::prepare, and the
  // per-worker metrics as one more, first), each timed; beside the phases on the pool, or
  // one after another on a thread of its own.
  class RowEvaluation {
   public:
    RowEvaluation(const Recorder& recorder, const Stamp& at, std::vector<models::Vector>&& models,
                  std::vector<int>&& holders);
    RowEvaluation(const RowEvaluation&) = delete;
    RowEvaluation& operator=(const RowEvaluation&) = delete;
    std::span<ComputeJob* const> jobs() const { return jobs_; }
    // Once every job has run: the values, and the seconds spent on other threads than the
    // one that built this row. Rethrows what a job threw.
    Evaluated result();

    const Stamp at;
    const std::vector<models::Vector> models;  // read by the jobs
    const std::vector<int> holders;

   private:
    // A job, timed, and whether it ran on another thread than `poster`.
    class Timed final : public ComputeJob {
     public:
      Timed(ComputeJob& job, std::thread::id poster) : job_(&job), poster_(poster) {}
      void run() noexcept override;
      void finish() override { job_->finish(); }
      int order() const override { return 0; }
      double seconds = 0;
      bool beside = false;

     private:
      ComputeJob* job_;
      std::thread::id poster_;
    };
    // Evaluator::evaluate_each as a job.
    class EachJob final : public ComputeJob {
     public:
      explicit EachJob(const RowEvaluation& row) : row_(row) {}
      void run() noexcept override;
      void finish() override;  // rethrows
      int order() const override { return 0; }
      std::vector<WorkerMetrics> each;

     private:
      const RowEvaluation& row_;
      std::exception_ptr error_;
    };

    const Recorder& recorder_;
    std::unique_ptr<EvaluationJobs> passes_;
    std::optional<EachJob> each_;
    std::vector<Timed> timed_;
    std::vector<ComputeJob*> jobs_;
  };
  struct InFlight {
    std::unique_ptr<RowEvaluation> row;
    std::future<void> thread;  // from the row thread; invalid when the row is on the pool
  };
  // The row's values (without ranks), and how long they took, on the evaluator's pool.
  Evaluated evaluate_here(const std::vector<models::Vector>& models,
                          std::span<const int> holders) const;
  // Tells the row in flight, waiting for its evaluation if `wait`; else only when done.
  void land(bool wait);
  // emit()'s evaluation across ranks: the models gathered into `models` on rank 0, the
  // results shared with every rank.
  void evaluate_across_ranks(std::vector<models::Vector>& models, std::span<const int> holders,
                             Evaluation& e, std::vector<WorkerMetrics>& each);
  double fraction_done(std::int64_t k) const;

  Engine& engine_;
  const Network& network_;
  const Evaluator& evaluator_;
  RecorderPlan plan_;
  std::vector<MetricsObserver*> observers_;
  Clock::time_point start_;
  bool track_every_iteration_;  // the final row may fall on any iteration
  std::map<std::int64_t, Snapshot> pending_;
  // A completed iteration's node, reused for the next one (no allocation per iteration).
  std::map<std::int64_t, Snapshot>::node_type spare_;
  // The entry the last deposit found; end() once an entry leaves pending_.
  std::map<std::int64_t, Snapshot>::iterator last_found_ = pending_.end();
  std::vector<std::int64_t> last_deposit_;  // per holder; empty until a holder retires
  std::int64_t completed_ = 0;
  std::int64_t last_emitted_ = -1;
  std::optional<std::pair<Stamp, std::vector<models::Vector>>> latest_;  // of `completed_`
  SimTime next_time_point_{};
  std::optional<MetricsRow> last_row_;
  bool finishing_ = false;  // in finish(): the last row
  double wall_metrics_s_ = 0;
  double background_metrics_s_ = 0;
  Clock::time_point last_progress_{};
  RankGroup* ranks_ = nullptr;
  WorkerPlacement placement_{1, 1, 0};
  // ~Recorder takes a row on the pool back.
  std::optional<InFlight> in_flight_;
  // Last: destroyed first, it waits for an evaluation still running (a run that ends by an
  // exception) while the row and the members its jobs read exist. Made at the first row
  // evaluated in the background without a pool.
  std::optional<RowThread> row_thread_;
};

}  // namespace dlsim::sim
