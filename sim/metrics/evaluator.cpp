#include "sim/metrics/evaluator.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <exception>

#include "sim/engine/byte_codec.hpp"

namespace dlsim::sim {

namespace {

// One pass of an evaluation as a pool job; finish() rethrows what the pass threw.
template <class F>
class PassJob final : public ComputeJob {
 public:
  explicit PassJob(F& pass) : pass_(pass) {}
  void run() noexcept override {
    try {
      pass_();
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  void finish() override {
    if (error_) std::rethrow_exception(error_);
  }
  int order() const override { return 0; }

 private:
  F& pass_;
  std::exception_ptr error_;
};

// The data-loss sum and correct count over one chunk of rows, as a pool job.
class ChunkJob final : public ComputeJob {
 public:
  ChunkJob(const models::Objective& objective, const models::Vector& w, const models::Dataset& data,
           models::Index begin, models::Index end)
      : objective_(&objective), w_(&w), data_(&data), begin_(begin), end_(end) {}
  void run() noexcept override {
    try {
      sums_ = *objective_->data_sums(*w_, *data_, begin_, end_);
    } catch (...) {
      error_ = std::current_exception();
    }
  }
  void finish() override {
    if (error_) std::rethrow_exception(error_);
  }
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

// Appends the chunks of `data` to `chunks`.
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

bool Evaluator::chunked(const models::Vector& w) const {
  // Empty sets keep the whole-pass calls (and their errors); an empty range probes
  // whether the objective implements data_sums.
  if ((train_ && train_->size() == 0) || (test_ && test_->size() == 0)) return false;
  const models::Dataset* data = train_ ? train_ : test_;
  return data && objective_.data_sums(w, *data, 0, 0).has_value();
}

void Evaluator::evaluate_chunked(const models::Vector& mean, bool train_pass, Evaluation& e,
                                 JobPool* pool, RankGroup* ranks) const {
  std::vector<ChunkJob> chunks;
  if (train_pass) add_chunks(objective_, mean, *train_, chunks);
  const std::size_t train_chunks = chunks.size();
  if (test_) add_chunks(objective_, mean, *test_, chunks);
  const int k = ranks ? ranks->size() : 1, me = ranks ? ranks->rank() : 0;
  std::vector<ComputeJob*> jobs;
  for (std::size_t c = me; c < chunks.size(); c += std::size_t(k)) jobs.push_back(&chunks[c]);
  if (pool)
    pool->run_all(jobs);
  else
    for (ComputeJob* job : jobs) job->run();
  for (ComputeJob* job : jobs) job->finish();  // rethrows
  if (ranks) {
    // This rank's sums in chunk order; rank 0 puts every rank's back in place.
    std::vector<std::byte> bytes;
    ByteWriter w(bytes);
    for (std::size_t c = me; c < chunks.size(); c += std::size_t(k)) {
      const models::LossSums& s = chunks[c].sums();
      w.put(s.loss);
      w.put(s.correct.has_value());
      w.put(s.correct.value_or(0.0));
    }
    const Gathered all = ranks->gather(bytes);
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
  }
  if (train_pass) {
    const double n = double(train_->size());
    e.train_loss = combine(chunks, 0, train_chunks).loss / n + objective_.regularizer(mean);
  }
  if (test_) {
    const double n = double(test_->size());
    const models::LossSums sums = combine(chunks, train_chunks, chunks.size());
    e.test_loss = sums.loss / n;
    if (sums.correct) e.test_accuracy = *sums.correct / n;
  }
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

Evaluation Evaluator::evaluate(const std::vector<models::Vector>& models, JobPool* pool) const {
  Evaluation e;
  e.consensus_distance = 0.0;  // centralized runs: one model, distance 0
  if (!objective_.has_math() || models.empty()) return e;

  const models::Vector mean = average_model(models);
  bool train_pass = false;
  e = measures_of_models(models, mean, train_pass);
  if (chunked(mean)) {
    evaluate_chunked(mean, train_pass, e, pool);
    return e;
  }
  auto train = [&] { e.train_loss = objective_.loss(mean, *train_); };
  auto test_loss = [&] { e.test_loss = objective_.data_loss(mean, *test_); };
  auto test_accuracy = [&] { e.test_accuracy = objective_.accuracy(mean, *test_); };
  if (!pool || pool->threads() == 1) {
    if (train_pass) train();
    if (test_) test_loss(), test_accuracy();
    return e;
  }
  PassJob<decltype(train)> train_job(train);
  PassJob<decltype(test_loss)> test_loss_job(test_loss);
  PassJob<decltype(test_accuracy)> test_accuracy_job(test_accuracy);
  std::array<ComputeJob*, 3> jobs{};
  std::size_t count = 0;
  if (train_pass) jobs[count++] = &train_job;  // the longest first
  if (test_) jobs[count++] = &test_loss_job, jobs[count++] = &test_accuracy_job;
  pool->run_all(std::span<ComputeJob* const>(jobs.data(), count));
  for (std::size_t i = 0; i < count; ++i) jobs[i]->finish();  // rethrows
  return e;
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
  evaluate_chunked(mean, train_pass, e, pool_, &ranks);
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
