#include "sim/metrics/evaluator.hpp"

#include <array>
#include <exception>

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

}  // namespace

Evaluation Evaluator::evaluate(const std::vector<models::Vector>& models) const {
  Evaluation e;
  e.consensus_distance = 0.0;  // centralized runs: one model, distance 0
  if (!objective_.has_math() || models.empty()) return e;

  models::Vector mean = models.front();
  for (std::size_t i = 1; i < models.size(); ++i) mean += models[i];
  mean /= double(models.size());

  if (decentralized_) {
    double sum = 0;
    for (const auto& x : models) sum += (x - mean).squaredNorm();
    e.consensus_distance = sum / double(models.size());
  }
  if (const auto loss = objective_.loss_of_models(models)) e.train_loss = *loss;
  const bool train_pass = !e.train_loss && train_;
  auto train = [&] { e.train_loss = objective_.loss(mean, *train_); };
  auto test_loss = [&] { e.test_loss = objective_.data_loss(mean, *test_); };
  auto test_accuracy = [&] { e.test_accuracy = objective_.accuracy(mean, *test_); };
  if (!pool_ || pool_->threads() == 1) {
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
  pool_->run_all(std::span<ComputeJob* const>(jobs.data(), count));
  for (std::size_t i = 0; i < count; ++i) jobs[i]->finish();  // rethrows
  return e;
}

std::vector<WorkerMetrics> Evaluator::evaluate_each(
    const std::vector<models::Vector>& models) const {
  std::vector<WorkerMetrics> each(models.size());
  if (!objective_.has_math() || models.empty()) return each;
  models::Vector mean = models.front();
  for (std::size_t i = 1; i < models.size(); ++i) mean += models[i];
  mean /= double(models.size());
  for (std::size_t i = 0; i < models.size(); ++i) {
    const models::Vector& x = models[i];
    WorkerMetrics& w = each[i];
    w.worker = int(i);
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
