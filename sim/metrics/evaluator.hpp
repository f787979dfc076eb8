// What a metrics point measures (docs/design.md §5): the full objective of the averaged
// model x̄ = (1/n) Σ_i x_i on the training set (or on the fixed `metrics.eval_samples`
// subsample of it), its data loss and accuracy on the test set, and the consensus
// distance (1/n) Σ_i ||x_i − x̄||² of decentralized runs. Objectives whose loss depends
// on every model (`consensus`: (1/n) Σ_i ||x_i − x̄⁰||²) report it through
// Objective::loss_of_models, which then is train_loss.
#pragma once

#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "models/objectives/objective.hpp"
#include "sim/engine/job_pool.hpp"
#include "sim/engine/rank_group.hpp"
#include "sim/metrics/evaluation_jobs.hpp"
#include "sim/metrics/observer.hpp"

namespace dlsim::sim {

/// x̄ = (1/n) Σ_i x_i, summed in holder order: the model a metrics row evaluates (and
/// output.save_model writes). `models` must not be empty.
models::Vector average_model(std::span<const models::Vector> models);

class Evaluator {
 public:
  /// `train` is the set train_loss is measured on (DataSplit::loss_set(): the training
  /// set or its eval_samples subsample); `train` and `test` may be null (no data / no
  /// test set).
  Evaluator(const models::Objective& objective, const models::Dataset* train,
            const models::Dataset* test, bool decentralized)
      : objective_(objective), train_(train), test_(test), decentralized_(decentralized) {}

  /// The passes run as jobs on `pool` (EvaluationJobs: chunks for objectives with
  /// Objective::data_sums, three whole passes for others); the results do not depend on
  /// the pool's thread count.
  void set_pool(JobPool* pool) { pool_ = pool; }

  /// The row's values; its jobs on the pool (without one: on the calling thread).
  Evaluation evaluate(const std::vector<models::Vector>& models) const;
  /// evaluate() as jobs for the caller to run (beside the simulation, sim/metrics/
  /// recorder.hpp): x̄ and what needs no data pass are computed here, the passes are left
  /// to the jobs. The models may change once this returns; the Evaluator must outlive it.
  std::unique_ptr<EvaluationJobs> prepare(const std::vector<models::Vector>& models) const;
  /// evaluate() across ranks (sim/engine/rank_group.hpp), called by every rank; only
  /// rank 0's `models` are read (every holder's) and only its result is meaningful.
  /// The chunks of the passes are split among the ranks (chunk c on rank c mod K) and
  /// their sums added on rank 0 in chunk order, so the values are evaluate()'s.
  Evaluation evaluate_across(RankGroup& ranks, const std::vector<models::Vector>& models) const;
  /// Each model on its own (metrics.per_worker): train_loss of x_i (the objective's
  /// loss_of_models of x_i alone when it has one, e.g. consensus: ||x_i − x̄⁰||²), test
  /// loss and accuracy of x_i, and ||x_i − x̄||²; each labelled with its holder
  /// `holders[i]` (the worker id: failed workers are left out of `models`).
  std::vector<WorkerMetrics> evaluate_each(const std::vector<models::Vector>& models,
                                           std::span<const int> holders) const;

 private:
  bool chunked(const models::Vector& w) const;
  // What needs no data pass: the consensus distance and the objective's loss_of_models;
  // `train_pass` tells whether train_loss still needs one.
  Evaluation measures_of_models(const std::vector<models::Vector>& models,
                                const models::Vector& mean, bool& train_pass) const;
  // The chunked passes over the mean, split among the ranks: this rank runs only its
  // chunks and rank 0 adds everyone's sums (the others' `e` stays as it was).
  void evaluate_chunked_across(const models::Vector& mean, bool train_pass, Evaluation& e,
                               RankGroup& ranks) const;

  const models::Objective& objective_;
  const models::Dataset* train_;
  const models::Dataset* test_;
  bool decentralized_;
  JobPool* pool_ = nullptr;
};

}  // namespace dlsim::sim
