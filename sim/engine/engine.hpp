// The virtual-time event engine (docs/design.md §6): an integer picosecond clock, a heap
// of plain event records, and processes written as C++20 coroutines. No global state but
// the allocator's (heap_prefault.hpp): several engines can run in one program.
#pragma once

#include <atomic>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <memory>
#include <span>
#include <vector>

#include "sim/engine/event_queue.hpp"
#include "sim/engine/job_pool.hpp"
#include "sim/engine/task.hpp"
#include "sim/engine/units.hpp"

namespace dlsim::sim {

/// Something that reacts to its own scheduled events (the network, timers).
class EventHandler {
 public:
  virtual void on_event(std::uint64_t arg) = 0;

 protected:
  ~EventHandler() = default;
};

/// A simulation spread over ranks (rank_group.hpp): which jobs this rank runs, and how
/// the other ranks' jobs learn their results (sim/runtime/rank_jobs.hpp implements it).
class JobExchange {
 public:
  virtual bool local(const ComputeJob& job) const = 0;
  /// After this rank's jobs of a phase have run: ships their results and hands every
  /// other job its own. `jobs` (the whole phase) is in the same order on every rank.
  virtual void exchange(std::span<ComputeJob* const> jobs) = 0;

 protected:
  ~JobExchange() = default;
};

class Engine final : private ProcessObserver {
 public:
  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine();

  SimTime now() const { return now_; }

  /// Schedules `handler->on_event(arg)` at `at` (>= now). An event at SimTime::max() (a
  /// saturated sum) is never run: it marks the clock's end (reached_clock_end()).
  /// (Inline: several calls per simulated message.)
  void schedule(SimTime at, EventHandler* handler, std::uint64_t arg) {
    if (at < now_) throw_scheduled_in_the_past();
    if (at == SimTime::max()) {  // saturated: due beyond the clock's end, so never run
      beyond_clock_end_ = true;
      return;
    }
    queue_.push(Event{at, handler, arg});
  }
  /// Schedules the resumption of a suspended coroutine at `at` (>= now).
  void schedule_resume(SimTime at, std::coroutine_handle<> h) {
    schedule(at, nullptr, reinterpret_cast<std::uint64_t>(h.address()));
  }

  /// Registers a computation (job_pool.hpp). Before the clock moves past the current
  /// instant, run() runs every registered job (in parallel with threads > 1) and then
  /// calls their finish() in node-id order on this thread. With one thread, no rank
  /// exchange and jobs registered in node-id order, each job's finish() follows its own
  /// run() at once (one pass over the jobs instead of two; job_pool.hpp).
  void submit(ComputeJob* job) {
    // Whether the jobs come in order() (processes resumed in node order, the usual case):
    // known here, where the job was just written, instead of in a pass of its own.
    const int order = job->order();
    jobs_in_order_ = jobs_.empty() || (jobs_in_order_ && order >= last_order_);
    last_order_ = order;
    jobs_.push_back(job);
  }
  /// Threads for the jobs (>= 1; default 1: inline, one after another).
  void set_threads(int threads);
  int threads() const { return pool_ ? pool_->threads() : 1; }
  /// The jobs carry no math (a `profile` model: a cost and a message size each): every
  /// phase then runs on this thread, as with one thread, even when there is a pool.
  /// Spreading jobs of tens of nanoseconds over cores only moves their processes' frames
  /// between the cores' caches (README, "Threads"). The pool stays for other work.
  void set_jobs_without_math(bool without) { jobs_without_math_ = without; }
  /// Across ranks: each phase runs only the jobs `exchange` calls local, then lets it
  /// exchange results before any finish(). Null (the default): every job runs here.
  void set_job_exchange(JobExchange* exchange) { exchange_ = exchange; }
  /// The pool (null with one thread), for other work: metrics evaluated between events, or
  /// beside the phases (JobPool::post_beside).
  JobPool* pool() const { return pool_.get(); }
  /// Wall seconds spent running jobs (the parallel phases), and how many phases.
  double jobs_wall_s() const { return jobs_wall_s_; }
  std::uint64_t job_phases() const { return job_phases_; }

  /// Adds a process; it starts at the current time, after already scheduled events.
  void spawn(Task<void> process);

  /// Runs events until none is left, stop() is called, or the next event lies past
  /// `until` (the clock then stops at `until`). Rethrows a process's exception.
  void run(SimTime until = SimTime::max());
  /// Makes run() return after the current event.
  void stop() { stopped_ = true; }
  /// run() also returns (as after stop()) once `*request` is non-zero, checked every
  /// 1,024 events; a signal handler sets it (sim/run/interrupt.hpp). Null: never.
  void set_stop_request(const std::atomic<int>* request) { stop_request_ = request; }
  /// Notes that something will happen only beyond the clock's end (a transfer whose
  /// finish saturates); scheduling at SimTime::max() does the same.
  void note_beyond_clock_end() { beyond_clock_end_ = true; }
  /// Whether the last run() ended because every remaining event lay beyond the end of
  /// the clock (SimTime::max(), where time arithmetic saturates) while a process was still
  /// waiting.
  bool reached_clock_end() const { return reached_clock_end_; }
  bool stopped() const { return stopped_; }

  std::uint64_t events_processed() const { return events_; }
  std::size_t pending_events() const { return queue_.size(); }
  /// Processes that have not finished yet.
  std::size_t live_processes() const { return processes_.size() - finished_; }

 private:
  void on_process_done(std::exception_ptr error) override;
  [[noreturn]] static void throw_scheduled_in_the_past();
  void run_jobs();

  SimTime now_{};
  std::uint64_t events_ = 0;
  EventQueue queue_;
  std::vector<Task<void>> processes_;
  std::size_t finished_ = 0;
  std::exception_ptr error_;
  bool stopped_ = false;
  bool reached_clock_end_ = false;
  bool beyond_clock_end_ = false;
  const std::atomic<int>* stop_request_ = nullptr;
  std::vector<ComputeJob*> jobs_;  // registered at the current instant
  std::vector<ComputeJob*> running_;
  std::vector<ComputeJob*> local_;  // running_'s jobs of this rank (with exchange_)
  JobExchange* exchange_ = nullptr;
  struct JobRank {
    int order;
    std::uint32_t index;  // in running_
  };
  std::vector<JobRank> finish_order_;  // scratch of run_jobs()
  bool jobs_in_order_ = true;          // jobs_ registered in order() so far
  int last_order_ = 0;
  std::unique_ptr<JobPool> pool_;   // null: one thread
  bool jobs_without_math_ = false;  // run phases here despite pool_
  double jobs_wall_s_ = 0;
  std::uint64_t job_phases_ = 0;
};

}  // namespace dlsim::sim
