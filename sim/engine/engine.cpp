#include "sim/engine/engine.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>

#include "sim/engine/heap_prefault.hpp"
#include "sim/engine/prefetch.hpp"

namespace dlsim::sim {

Engine::~Engine() {
  // Destroying suspended coroutine frames runs their destructors; no event may
  // refer to them afterwards.
  queue_.clear();
  jobs_.clear();  // they live in the frames destroyed next
  processes_.clear();
}

void Engine::throw_scheduled_in_the_past() {
  throw std::logic_error("event scheduled in the past");
}

void Engine::spawn(Task<void> process) {
  auto h = process.handle();
  h.promise().observer = this;
  processes_.push_back(std::move(process));
  if ((processes_.size() & 255) == 0) HeapPrefault::poll();  // frames come fast here
  schedule_resume(now_, h);
}

void Engine::run(SimTime until) {
  stopped_ = false;
  reached_clock_end_ = false;
  while (!stopped_) {
    // The instant is over when no event is left at `now`: run its computations, whose
    // finish() schedules the resumptions (at now or later).
    if (!jobs_.empty() && (queue_.empty() || queue_.next_time() != now_)) {
      run_jobs();
      if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
      continue;
    }
    if (queue_.empty()) {
      // A process still waits for something due only beyond the clock's end: the run
      // ends there (or at `until`, which comes first). When every process has finished,
      // the run simply ended (a transfer whose finish once saturated may have been
      // re-planned since).
      if (beyond_clock_end_ && live_processes() > 0) {
        if (until < SimTime::max())
          now_ = until;
        else
          reached_clock_end_ = true, now_ = SimTime::max();
      }
      break;
    }
    if (queue_.next_time() > until) {
      now_ = until;
      return;
    }
    // The frame of a process resumed a few events from now (prefetch.hpp).
    if (const Event* ahead = queue_.look_ahead(kPrefetchAhead); ahead && !ahead->handler)
      prefetch_frame(reinterpret_cast<const void*>(ahead->arg));
    Event e = queue_.pop();
    now_ = e.time;
    ++events_;
    if (e.handler) {
      e.handler->on_event(e.arg);
    } else {
      std::coroutine_handle<>::from_address(reinterpret_cast<void*>(e.arg)).resume();
    }
    if (error_) std::rethrow_exception(std::exchange(error_, nullptr));
    // A stop request (a signal) is honoured within a bounded number of events, even in
    // one endless iteration (a link that drops almost every packet).
    if ((events_ & 255) == 0) HeapPrefault::poll();
    if (stop_request_ && (events_ & 1023) == 0 && stop_request_->load(std::memory_order_relaxed))
      stopped_ = true;
  }
}

void Engine::set_threads(int threads) {
  if (threads < 1) throw std::invalid_argument("threads must be >= 1");
  pool_ = threads > 1 ? std::make_unique<JobPool>(threads) : nullptr;
}

void Engine::run_jobs() {
  running_.swap(jobs_);  // finish() may register new jobs at this instant
  jobs_.clear();
  const bool in_order = jobs_in_order_;  // as submit() found them
  JobPool* const pool = jobs_without_math_ ? nullptr : pool_.get();
  // One thread, every job here, already in finish order: each job's finish() right after
  // its run(), while the job is still in the cache (a million-worker phase otherwise walks
  // its million jobs twice). The phase's wall time then includes the finish() calls.
  const bool finish_at_once = !pool && !exchange_ && in_order;
  const auto t0 = std::chrono::steady_clock::now();
  std::span<ComputeJob* const> here = running_;
  if (exchange_) {
    local_.clear();
    for (ComputeJob* job : running_)
      if (exchange_->local(*job)) local_.push_back(job);
    here = local_;
  }
  if (pool) {
    pool->run_all(here, JobPool::Spread::by_order);  // a node's steps on one core
  } else {
    for (std::size_t i = 0; i < here.size(); ++i) {
      prefetch_job_ahead(here, i);
      here[i]->run();
      if (finish_at_once) here[i]->finish();
      if ((i & 255) == 255) HeapPrefault::poll();  // a phase of a million jobs allocates
    }
  }
  jobs_wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (exchange_) exchange_->exchange(running_);
  ++job_phases_;
  if (in_order && !finish_at_once) {
    for (std::size_t i = 0; i < running_.size(); ++i) {
      prefetch_job_ahead(running_, i);
      running_[i]->finish();
    }
  } else if (!in_order) {
    // finish() in order(), stable: sorted by (order, registration index). std::stable_sort
    // would allocate a merge buffer per phase; this scratch keeps its capacity.
    finish_order_.clear();
    for (std::size_t i = 0; i < running_.size(); ++i)
      finish_order_.push_back(JobRank{running_[i]->order(), std::uint32_t(i)});
    std::sort(finish_order_.begin(), finish_order_.end(), [](const JobRank& a, const JobRank& b) {
      return a.order != b.order ? a.order < b.order : a.index < b.index;
    });
    for (const JobRank& rank : finish_order_) running_[rank.index]->finish();
  }
  running_.clear();
}

void Engine::on_process_done(std::exception_ptr error) {
  ++finished_;
  if (error && !error_) error_ = error;
}

}  // namespace dlsim::sim
