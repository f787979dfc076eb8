// One metrics evaluation's data passes as jobs (Evaluator::prepare, docs/design.md §5):
// objectives with Objective::data_sums cut the training and test sets into chunks of
// kEvaluationChunkRows rows (a fixed split, whatever runs them), others make three whole
// passes (train loss, test loss, test accuracy). The jobs may run once each, on any
// threads, in any order: inline on the pool's phases, beside them (JobPool::post_beside), or
// split among MPI ranks. result() then adds the chunks' sums in chunk order on the calling
// thread, so the values never depend on who ran what.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "models/objectives/objective.hpp"
#include "sim/engine/job_pool.hpp"

namespace dlsim::sim {

struct Evaluation {
  std::optional<double> train_loss;
  std::optional<double> test_loss;
  std::optional<double> test_accuracy;
  std::optional<double> consensus_distance;
};

/// Rows per evaluation chunk: 60,000 training rows make 15 chunks, enough for any
/// small pool to balance, while each chunk still amortizes its blocked GEMMs.
inline constexpr models::Index kEvaluationChunkRows = 4096;

/// The data-loss sum and correct count over rows [begin, end) of a data set at w.
class ChunkJob final : public ComputeJob {
 public:
  ChunkJob(const models::Objective& objective, const models::Vector& w, const models::Dataset& data,
           models::Index begin, models::Index end)
      : objective_(&objective), w_(&w), data_(&data), begin_(begin), end_(end) {}
  void run() noexcept override;
  void finish() override;  // rethrows what run() threw
  int order() const override { return 0; }
  const models::LossSums& sums() const { return sums_; }
  void set_sums(const models::LossSums& sums) { sums_ = sums; }  // another rank ran it

 private:
  const models::Objective* objective_;
  const models::Vector* w_;
  const models::Dataset* data_;
  models::Index begin_, end_;
  models::LossSums sums_;
  std::exception_ptr error_;
};

/// One whole pass (objectives without data_sums) as a job.
class PassJob final : public ComputeJob {
 public:
  explicit PassJob(std::function<void()> pass) : pass_(std::move(pass)) {}
  void run() noexcept override;
  void finish() override;  // rethrows what the pass threw
  int order() const override { return 0; }

 private:
  std::function<void()> pass_;
  std::exception_ptr error_;
};

class EvaluationJobs {
 public:
  /// The passes over `mean` that `partial` (the measures that need no data) still lacks:
  /// over `train` unless null (its train loss is known), and over `test` unless null;
  /// in chunks when `chunked`, else whole.
  EvaluationJobs(const models::Objective& objective, models::Vector mean, Evaluation partial,
                 const models::Dataset* train, const models::Dataset* test, bool chunked);
  // Not copied or moved: the jobs point at this object's members.
  EvaluationJobs(const EvaluationJobs&) = delete;
  EvaluationJobs& operator=(const EvaluationJobs&) = delete;

  /// Every job, the largest first.
  std::span<ComputeJob* const> jobs() const { return jobs_; }
  /// The chunks, training set's first (empty without chunks), to split among ranks.
  std::vector<ChunkJob>& chunks() { return chunks_; }

  /// Once every job has run (or, among ranks, every chunk's sums are set): the values.
  /// Rethrows what a job threw.
  Evaluation result();

 private:
  const models::Objective& objective_;
  const models::Vector mean_;
  Evaluation e_;
  const models::Dataset* train_;
  const models::Dataset* test_;
  bool chunked_;
  std::vector<ChunkJob> chunks_;
  std::size_t train_chunks_ = 0;
  std::vector<PassJob> passes_;
  std::vector<ComputeJob*> jobs_;
};

}  // namespace dlsim::sim
