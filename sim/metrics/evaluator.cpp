#include "sim/metrics/evaluator.hpp"

#include <cstring>

#include "sim/engine/byte_codec.hpp"

namespace dlsim::sim {

bool Evaluator::chunked(const models::Vector& w) const {
  // Empty sets keep the whole-pass calls (and their errors); an empty range probes
  // whether the objective implements data_sums.
  if ((train_ && train_->size() == 0) || (test_ && test_->size() == 0)) return false;
  const models::Dataset* data = train_ ? train_ : test_;
  return data && objective_.data_sums(w, *data, 0, 0).has_value();
}

void Evaluator::evaluate_chunked_across(const models::Vector& mean, bool train_pass, Evaluation& e,
                                        RankGroup& ranks) const {
  EvaluationJobs passes(objective_, mean, e, train_pass ? train_ : nullptr, test_, true);
  std::vector<ChunkJob>& chunks = passes.chunks();
  const int k = ranks.size(), me = ranks.rank();
  std::vector<ComputeJob*> jobs;
  for (std::size_t c = me; c < chunks.size(); c += std::size_t(k)) jobs.push_back(&chunks[c]);
  if (pool_)
    pool_->run_all(jobs);
  else
    for (ComputeJob* job : jobs) job->run();
  for (ComputeJob* job : jobs) job->finish();  // rethrows
  // This rank's sums in chunk order; rank 0 puts every rank's back in place.
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  for (std::size_t c = me; c < chunks.size(); c += std::size_t(k)) {
    const models::LossSums& s = chunks[c].sums();
    w.put(s.loss);
    w.put(s.correct.has_value());
    w.put(s.correct.value_or(0.0));
  }
  const Gathered all = ranks.gather(bytes);
  if (me != 0) return;
  for (int r = 1; r < k; ++r) {
    ByteReader in(all.of(r));
    for (std::size_t c = std::size_t(r); c < chunks.size(); c += std::size_t(k)) {
      models::LossSums s;
      s.loss = in.get<double>();
      const bool has_correct = in.get<bool>();
      const double correct = in.get<double>();
      if (has_correct) s.correct = correct;
      chunks[c].set_sums(s);
    }
  }
  e = passes.result();
}

models::Vector average_model(std::span<const models::Vector> models) {
  models::Vector mean = models.front();
  for (std::size_t i = 1; i < models.size(); ++i) mean += models[i];
  mean /= double(models.size());
  return mean;
}

Evaluation Evaluator::measures_of_models(const std::vector<models::Vector>& models,
                                         const models::Vector& mean, bool& train_pass) const {
  Evaluation e;
  e.consensus_distance = 0.0;  // centralized runs: one model, distance 0
  if (decentralized_) {
    double sum = 0;
    for (const auto& x : models) sum += (x - mean).squaredNorm();
    e.consensus_distance = sum / double(models.size());
  }
  if (const auto loss = objective_.loss_of_models(models)) e.train_loss = *loss;
  train_pass = !e.train_loss && train_;
  return e;
}

std::unique_ptr<EvaluationJobs> Evaluator::prepare(
    const std::vector<models::Vector>& models) const {
  Evaluation e;
  e.consensus_distance = 0.0;  // centralized runs: one model, distance 0
  if (!objective_.has_math() || models.empty())
    return std::make_unique<EvaluationJobs>(objective_, models::Vector(), e, nullptr, nullptr,
                                            false);
  models::Vector mean = average_model(models);
  bool train_pass = false;
  e = measures_of_models(models, mean, train_pass);
  const bool in_chunks = chunked(mean);
  return std::make_unique<EvaluationJobs>(objective_, std::move(mean), e,
                                          train_pass ? train_ : nullptr, test_, in_chunks);
}

Evaluation Evaluator::evaluate(const std::vector<models::Vector>& models) const {
  const std::unique_ptr<EvaluationJobs> passes = prepare(models);
  if (pool_)
    pool_->run_all(passes->jobs());
  else
    for (ComputeJob* job : passes->jobs()) job->run();
  return passes->result();
}

Evaluation Evaluator::evaluate_across(RankGroup& ranks,
                                      const std::vector<models::Vector>& models) const {
  // Rank 0 decides whether the passes split into chunks and sends the mean to evaluate.
  Evaluation e;
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  models::Vector mean;
  bool train_pass = false;
  if (ranks.rank() == 0) {
    const bool spread = objective_.has_math() && !models.empty() && chunked(models.front());
    w.put(spread);
    if (spread) {
      mean = average_model(models);
      e = measures_of_models(models, mean, train_pass);
      w.put(train_pass);
      w.put_bytes(std::as_bytes(std::span<const double>(mean.data(), std::size_t(mean.size()))));
    }
  }
  ranks.broadcast(bytes, 0);
  ByteReader in(bytes);
  if (!in.get<bool>()) return ranks.rank() == 0 ? evaluate(models) : e;
  train_pass = in.get<bool>();
  if (ranks.rank() != 0) {
    const auto values = in.get_bytes();
    mean.resize(models::Index(values.size() / sizeof(double)));
    std::memcpy(mean.data(), values.data(), values.size());
  }
  evaluate_chunked_across(mean, train_pass, e, ranks);
  return e;
}

std::vector<WorkerMetrics> Evaluator::evaluate_each(const std::vector<models::Vector>& models,
                                                    std::span<const int> holders) const {
  std::vector<WorkerMetrics> each(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) each[i].worker = holders[i];
  if (!objective_.has_math() || models.empty()) return each;
  const models::Vector mean = average_model(models);
  for (std::size_t i = 0; i < models.size(); ++i) {
    const models::Vector& x = models[i];
    WorkerMetrics& w = each[i];
    w.consensus_distance = (x - mean).squaredNorm();
    if (const auto loss = objective_.loss_of_models(std::span<const models::Vector>(&x, 1)))
      w.train_loss = *loss;
    else if (train_)
      w.train_loss = objective_.loss(x, *train_);
    if (test_) {
      w.test_loss = objective_.data_loss(x, *test_);
      w.test_accuracy = objective_.accuracy(x, *test_);
    }
  }
  return each;
}

}  // namespace dlsim::sim
