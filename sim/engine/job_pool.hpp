// Parallel math at one simulated instant (docs/design.md §6, `--threads N`): processes that
// start a computation suspend and register a ComputeJob with the engine; before the
// clock moves past the current instant the engine runs every registered job, on this
// pool when it has more than one thread, then calls each job's finish() on the engine
// thread in node-id order. Jobs touch only their own node's state (its model, its
// batch sampler, its compressor streams and random streams), so the results are the
// same for every N by construction; N = 1 runs the jobs inline, one after another.
//
// The pool: N − 1 std::jthread helpers plus the calling (engine) thread. A phase hands
// out job indices through atomic counters, one per thread (a lane), and ends when every
// job has run (a claim takes several jobs when many are left); helpers sleep on
// std::atomic::wait between phases after spinning for 0.5 ms. The engine's phases place
// each node's job in the lane of thread order() mod N, so that a node's state stays in
// one core's cache from step to step; a thread done with its own lane takes jobs from the
// others' (dynamic load balancing). No allocation per phase or per job once the largest
// phase has been seen.
//
// Work beside the phases (post_beside): jobs a helper runs when no phase has a job for it,
// such as the chunks of a metrics row evaluated while the simulation goes on
// (docs/design.md §5). It needs no thread more than --threads: while a helper runs one, the
// phases' jobs go to the other threads (claims are dynamic, so no phase waits for that
// helper), and the thread that waits for the batch runs what is left of it.
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

  /// Where a phase's jobs run first: each thread has a lane, takes from its head, and
  /// once it is empty takes from the tail of the others'. Spread::any: lanes of equal
  /// length, in the order given. Spread::by_order: lanes of consecutive order() values
  /// (node ids), the same node in the same lane at every phase, so that its state stays
  /// in one core's cache from step to step (job_pool.cpp).
  enum class Spread { any, by_order };

  /// Calls run() of every job exactly once, spread over the threads; returns when all
  /// have returned.
  void run_all(std::span<ComputeJob* const> jobs, Spread spread = Spread::any);

  /// How many consecutive jobs one claim takes when `left` are left (job_pool.cpp).
  static std::size_t claim_size(std::size_t left, int threads);

  /// Hands `jobs` to the helpers: each one without a phase's job to run takes the next of
  /// them, one at a time (their run() only; finish() is the caller's), and looks for a
  /// phase again in between. One batch at a time: the previous one must have been waited
  /// for (wait_beside, or beside_done() true); `jobs` must outlive it. Called on the thread
  /// that calls run_all. With one thread (no helper) the jobs wait for wait_beside.
  void post_beside(std::span<ComputeJob* const> jobs);
  /// post_beside() of one job.
  void post_beside(ComputeJob& job) {
    one_beside_ = &job;
    post_beside(std::span<ComputeJob* const>(&one_beside_, 1));
  }
  /// Whether every job of the batch posted last has run (true when none was posted).
  bool beside_done() const { return beside_pending_.load(std::memory_order_acquire) == 0; }
  /// Returns once the posted jobs have run: the calling thread runs those no helper has
  /// taken yet, then waits for the helpers' ones.
  void wait_beside();
  /// Takes back the posted jobs no helper has taken (they then never run) and waits for
  /// the others: for an owner that unwinds with a batch still posted.
  void withdraw_beside();

 private:
  void helper_loop(std::stop_token stop, int lane);
  // One phase of run_all: at most kMostJobs jobs (a lane's claim word counts in 16 bits).
  void run_phase(std::span<ComputeJob* const> jobs, Spread spread);
  static constexpr std::size_t kMostJobs = 0xffff;
  // Claims and runs the phase's jobs: from lane `own` first, then from the others.
  void work(std::uint64_t generation, int own);
  // Runs the next job posted beside if one is left; false if there was none to take.
  bool run_beside();
  // Wakes the helpers for a new phase or a job beside (only the run_all thread calls it).
  void bump_generation(std::uint64_t generation);

  // A thread's share of a phase: `claim` holds (generation << 32) | (head << 16) | tail,
  // its jobs not claimed yet being jobs_[head, tail) (job_pool.cpp). One cache line each:
  // the threads claim from their own without contending.
  struct alignas(64) Lane {
    std::atomic<std::uint64_t> claim{0};  // generation 0, empty
  };

  std::vector<std::jthread> helpers_;
  std::vector<Lane> lanes_;            // one per thread, the calling thread's first
  ComputeJob* const* jobs_ = nullptr;  // the current phase's jobs, lane after lane
  std::atomic<std::size_t> count_{0};  // ... and how many
  std::vector<ComputeJob*> placed_;    // Spread::by_order's jobs_, grouped by lane
  std::vector<std::size_t> bounds_;    // lane l: jobs_[bounds_[l], bounds_[l + 1])
  std::vector<std::size_t> cursors_;   // scratch of the grouping
  std::vector<std::size_t> lane_of_;   // ... and each job's lane
  std::size_t nodes_ = 1;              // one more than the largest order() placed so far
  std::atomic<std::size_t> done_{0};
  std::atomic<std::uint64_t> generation_{0};
  // The batch beside: claimed one index at a time through `beside_claim_`, (batch << 32)
  // | next index, like `claim_`; `beside_pending_` counts its jobs not finished yet.
  ComputeJob* const* beside_jobs_ = nullptr;
  std::atomic<std::size_t> beside_count_{0};
  std::atomic<std::uint64_t> beside_claim_{0xffffffffu};  // batch 0, closed
  std::atomic<std::uint32_t> beside_pending_{0};
  std::uint64_t beside_batch_ = 0;    // the last batch posted (the run_all thread's)
  ComputeJob* one_beside_ = nullptr;  // post_beside(ComputeJob&)'s batch
};

/// `--threads` as given: 0 means every hardware thread.
int resolve_threads(int requested);

}  // namespace dlsim::sim
