// The thread that evaluates metrics rows in the background when there is no job pool
// (--threads 1; recorder.hpp): one thread for the whole run, running one batch of jobs at
// a time. A thread per row (std::async, before) let a row's thread start while the last
// one was still exiting, and glibc then gave it a malloc arena of its own: the evaluation's
// scratch was held twice, by timing (LeNet-5 on Fashion-MNIST, shortened: peak RSS 235 or
// 280 MB from run to run of the same binary, 248 MB with MALLOC_ARENA_MAX=1, the same
// 145 MB peak heap by heaptrack). One thread keeps one arena and its thread_local scratch,
// as the pool's threads do, and creates no thread per row.
#pragma once

#include <condition_variable>
#include <future>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include "sim/engine/job_pool.hpp"

namespace dlsim::sim {

class RowThread {
 public:
  RowThread();
  /// Waits for the batch it is running (if any), then ends the thread.
  ~RowThread();
  RowThread(const RowThread&) = delete;
  RowThread& operator=(const RowThread&) = delete;

  /// Runs jobs[0], jobs[1], ... on the thread; the future is ready once all have run. The
  /// jobs must live until then. One batch at a time: the caller waits for a batch's
  /// future before posting the next.
  std::future<void> post(std::span<ComputeJob* const> jobs);

 private:
  void serve();

  std::mutex mutex_;
  std::condition_variable wake_;
  std::optional<std::packaged_task<void()>> next_;  // posted, not yet taken
  bool stopping_ = false;
  std::thread thread_;  // last: started once the members above exist
};

}  // namespace dlsim::sim
