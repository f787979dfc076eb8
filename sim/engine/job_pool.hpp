// Parallel math at one simulated instant (docs/design.md §6, `--threads N`): processes that
// start a computation suspend and register a ComputeJob with the engine; before the
// clock moves past the current instant the engine runs every registered job, on this
// pool when it has more than one thread, then calls each job's finish() on the engine
// thread in node-id order. Jobs touch only their own node's state (its model, its
// batch sampler, its compressor streams and random streams), so the results are the
// same for every N by construction; N = 1 runs the jobs inline, one after another.
//
// The pool: N − 1 std::jthread helpers plus the calling (engine) thread. A phase hands
// out job indices through one atomic counter (dynamic load balancing) and ends when
// every job has run (a claim takes several jobs when many are left); helpers sleep on
// std::atomic::wait between phases after a short spin. No allocation per phase or per job.
//
// Work beside the phases (post_beside): one job a helper runs when no phase has a job for
// it, such as a metrics row evaluated while the simulation goes on (docs/design.md §5). It
// needs no thread more than --threads: while a helper runs it, the phases' jobs go to the
// other threads (claims are dynamic, so no phase waits for that helper).
#pragma once

#include <atomic>
#include <coroutine>
#include <cstddef>
#include <cstdint>
#include <span>
#include <thread>
#include <vector>

#include "sim/engine/prefetch.hpp"

namespace dlsim::sim {

/// One node's piece of work in a parallel phase.
class ComputeJob {
 public:
  /// The math; may run on any pool thread, concurrently with other jobs. Must not throw
  /// (store the exception and rethrow it in finish() or later).
  virtual void run() noexcept = 0;
  /// Runs on the engine thread, in order(): after every job of the phase has run, or,
  /// with one thread and jobs registered in order(), right after this job's run(). So
  /// it must not change anything another job's run() reads (it schedules, it records).
  virtual void finish() = 0;
  /// The node id; finish() calls go in increasing order (stable for equal ids).
  virtual int order() const = 0;

  /// The process that waits for this job (set by its awaiter; null if none): run() and
  /// finish() work on its coroutine frame, which the engine prefetches a few jobs ahead
  /// (prefetch.hpp). Kept here, not read through a virtual call: the job's own line is
  /// not in the cache either.
  std::coroutine_handle<> waiting() const { return waiting_; }
  /// Where waiting() is kept, to prefetch before reading it.
  const void* waiting_address() const { return &waiting_; }

 protected:
  ~ComputeJob() = default;
  std::coroutine_handle<> waiting_;
};

/// Before job i of a run of jobs: prefetch the frame of the job kPrefetchAhead further
/// (its handle was prefetched kPrefetchAhead jobs ago), and the handle of the job twice as
/// far (prefetch.hpp).
inline void prefetch_job_ahead(std::span<ComputeJob* const> jobs, std::size_t i) {
  if (i + 2 * kPrefetchAhead < jobs.size())
    __builtin_prefetch(jobs[i + 2 * kPrefetchAhead]->waiting_address());
  if (i + kPrefetchAhead < jobs.size())
    if (const void* frame = jobs[i + kPrefetchAhead]->waiting().address()) prefetch_frame(frame);
}

class JobPool {
 public:
  /// `threads` >= 1 in total, the calling thread included.
  explicit JobPool(int threads);
  JobPool(const JobPool&) = delete;
  JobPool& operator=(const JobPool&) = delete;
  ~JobPool();

  int threads() const { return int(helpers_.size()) + 1; }

  /// Calls run() of every job exactly once, spread over the threads; returns when all
  /// have returned.
  void run_all(std::span<ComputeJob* const> jobs);

  /// How many consecutive jobs one claim takes when `left` are left (job_pool.cpp).
  static std::size_t claim_size(std::size_t left, int threads);

  /// Hands `job` to the helpers: the first one without a phase's job to run runs it (its
  /// run() only; finish() is the caller's). One job at a time: the previous one must have
  /// been waited for (wait_beside, or beside_done() true). Called on the thread that calls
  /// run_all. With one thread (no helper) the job waits for wait_beside.
  void post_beside(ComputeJob& job);
  /// Whether the job posted last has run (true when none was posted).
  bool beside_done() const { return beside_pending_.load(std::memory_order_acquire) == 0; }
  /// Returns once the posted job has run: runs it on the calling thread if no helper has
  /// taken it yet, else waits for that helper.
  void wait_beside();
  /// Takes the posted job back if no helper has taken it (it then never runs), else waits
  /// for it: for an owner that unwinds with a job still posted.
  void withdraw_beside();

 private:
  void helper_loop(std::stop_token stop);
  void work(std::uint64_t generation);
  // Runs the job posted beside if it is still there; false if there was none to take.
  bool run_beside();
  // Wakes the helpers for a new phase or a job beside (only the run_all thread calls it).
  void bump_generation(std::uint64_t generation);

  std::vector<std::jthread> helpers_;
  ComputeJob* const* jobs_ = nullptr;  // the current phase's jobs
  std::atomic<std::size_t> count_{0};  // ... and how many
  std::atomic<std::uint64_t> claim_{0};
  std::atomic<std::size_t> done_{0};
  std::atomic<std::uint64_t> generation_{0};
  std::atomic<ComputeJob*> beside_{nullptr};      // posted and not taken yet
  std::atomic<std::uint32_t> beside_pending_{0};  // 1 from post_beside until it has run
};

/// `--threads` as given: 0 means every hardware thread.
int resolve_threads(int requested);

}  // namespace dlsim::sim
