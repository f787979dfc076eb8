#include "sim/metrics/row_thread.hpp"

#include <stdexcept>

namespace dlsim::sim {

RowThread::RowThread() : thread_([this] { serve(); }) {}

RowThread::~RowThread() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::future<void> RowThread::post(std::span<ComputeJob* const> jobs) {
  std::packaged_task<void()> task([jobs] {
    for (ComputeJob* job : jobs) job->run();
  });
  std::future<void> done = task.get_future();
  {
    const std::lock_guard lock(mutex_);
    if (next_) throw std::logic_error("RowThread::post: a batch is already waiting");
    next_.emplace(std::move(task));
  }
  wake_.notify_one();
  return done;
}

void RowThread::serve() {
  for (;;) {
    std::packaged_task<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || next_; });
      // A batch posted before the stop still runs: its jobs are the caller's, and
      // the caller's future must become ready (its RowEvaluation outlives this thread).
      if (!next_) return;
      task = std::move(*next_);
      next_.reset();
    }
    task();
  }
}

}  // namespace dlsim::sim
