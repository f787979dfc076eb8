#include "sim/metrics/evaluation_jobs.hpp"

#include <algorithm>

namespace dlsim::sim {

void ChunkJob::run() noexcept {
  try {
    sums_ = *objective_->data_sums(*w_, *data_, begin_, end_);
  } catch (...) {
    error_ = std::current_exception();
  }
}

void ChunkJob::finish() {
  if (error_) std::rethrow_exception(error_);
}

void PassJob::run() noexcept {
  try {
    pass_();
  } catch (...) {
    error_ = std::current_exception();
  }
}

void PassJob::finish() {
  if (error_) std::rethrow_exception(error_);
}

namespace {

// Appends the chunks of `data` at w to `chunks`.
void add_chunks(const models::Objective& objective, const models::Vector& w,
                const models::Dataset& data, std::vector<ChunkJob>& chunks) {
  for (models::Index r0 = 0; r0 < data.size(); r0 += kEvaluationChunkRows)
    chunks.emplace_back(objective, w, data, r0, std::min(r0 + kEvaluationChunkRows, data.size()));
}

// Σ over chunks [first, last) in chunk order: the data loss and the correct count.
models::LossSums combine(const std::vector<ChunkJob>& chunks, std::size_t first, std::size_t last) {
  models::LossSums total;
  for (std::size_t i = first; i < last; ++i) {
    const models::LossSums& part = chunks[i].sums();
    total.loss += part.loss;
    if (part.correct) total.correct = total.correct.value_or(0.0) + *part.correct;
  }
  return total;
}

}  // namespace

EvaluationJobs::EvaluationJobs(const models::Objective& objective, models::Vector mean,
                               Evaluation partial, const models::Dataset* train,
                               const models::Dataset* test, bool chunked)
    : objective_(objective),
      mean_(std::move(mean)),
      e_(partial),
      train_(train),
      test_(test),
      chunked_(chunked) {
  if (chunked_) {
    if (train_) add_chunks(objective_, mean_, *train_, chunks_);
    train_chunks_ = chunks_.size();
    if (test_) add_chunks(objective_, mean_, *test_, chunks_);
    for (ChunkJob& c : chunks_) jobs_.push_back(&c);
    return;
  }
  passes_.reserve(3);  // the jobs point at them
  if (train_) passes_.emplace_back([this] { e_.train_loss = objective_.loss(mean_, *train_); });
  if (test_) {
    passes_.emplace_back([this] { e_.test_loss = objective_.data_loss(mean_, *test_); });
    passes_.emplace_back([this] { e_.test_accuracy = objective_.accuracy(mean_, *test_); });
  }
  for (PassJob& p : passes_) jobs_.push_back(&p);
}

Evaluation EvaluationJobs::result() {
  for (ComputeJob* job : jobs_) job->finish();  // rethrows
  if (!chunked_) return e_;
  if (train_) {
    const double n = double(train_->size());
    e_.train_loss = combine(chunks_, 0, train_chunks_).loss / n + objective_.regularizer(mean_);
  }
  if (test_) {
    const double n = double(test_->size());
    const models::LossSums sums = combine(chunks_, train_chunks_, chunks_.size());
    e_.test_loss = sums.loss / n;
    if (sums.correct) e_.test_accuracy = *sums.correct / n;
  }
  return e_;
}

}  // namespace dlsim::sim
