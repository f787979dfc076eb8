// `co_await me.compute([&] { ...math...; return cost; })` (node.hpp): the awaiter that
// turns a node's math into a ComputeJob (sim/engine/job_pool.hpp). The process
// suspends; at the end of the current instant the engine runs the callable, possibly
// on another thread and concurrently with other nodes' math, then — on the engine
// thread, in node-id order — finish() converts the returned ComputeCost into simulated
// time (ComputeModel::duration, jitter from the node's own stream) and schedules the
// resumption at now + duration. Simulated results therefore do not depend on --threads.
//
// The rule for the callable: touch only the node's own state (its model and buffers,
// its batch sampler, its compressor streams). Never the network, the recorder, the
// trace observer or anything shared; those stay outside, before or after the co_await.
//
// Wall-clock accounting: each job times itself (two steady_clock reads); compression
// inside a job is timed into the job's own counter through `current_job_wall`
// (WallAccount::time_compress() in sim/runtime/training.hpp), never into shared state.
// Without --profile only one job in ComputeModel::wall_sample_every() per thread is
// timed, counted that many times (and the calls inside the others are not timed).
#pragma once

#include <chrono>
#include <coroutine>
#include <cstdint>
#include <exception>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include "sim/engine/engine.hpp"
#include "sim/network/network.hpp"
#include "sim/runtime/compute_model.hpp"

namespace dlsim::sim {

/// Wall-clock counters of the compute job running on this thread.
struct JobWall {
  double compress_s = 0;   // compression inside the job
  double discarded_s = 0;  // math timers inside a job: the job's own clock covers them
  bool timed = true;       // false: the calls inside read no clock either
};
/// Set while a job's callable runs; null elsewhere (the engine thread outside jobs).
inline thread_local JobWall* current_job_wall = nullptr;
/// True while a compute job's callable runs on this thread: what it does belongs to
/// the job (across ranks its messages travel with the job's result, rank_jobs.hpp).
inline thread_local bool inside_compute_job = false;
/// Jobs run on this thread, to time one in ComputeModel::wall_sample_every().
inline thread_local std::uint64_t jobs_on_this_thread = 0;

/// The math of a compute job: a callable returning the cost to charge.
template <class F>
concept ComputeMath = std::is_invocable_r_v<models::ComputeCost, F&>;

/// What every node's compute job has, whatever its math: the node, and the cost (or
/// error) its math returned. Across ranks (rank_jobs.hpp) the rank that owns the node
/// runs the math and the others take its result with set_result() and then replay().
class NodeJob : public ComputeJob {
 public:
  NodeId node() const { return id_; }
  const models::ComputeCost& cost() const { return cost_; }
  std::exception_ptr error() const { return error_; }
  int order() const override { return int(id_); }

  /// The owner's result, in place of run().
  void set_result(const models::ComputeCost& cost, std::exception_ptr error) {
    cost_ = cost;
    error_ = std::move(error);
  }
  /// Runs the math of a node this rank does not own, for its effects on the node's
  /// engine-side state (its WorkerMath hands out the owner's messages and computes
  /// nothing), keeping the owner's cost; nothing after an error.
  virtual void replay() = 0;

 protected:
  NodeJob(NodeId id, bool on_the_spot) : id_(id), on_the_spot_(on_the_spot) {}
  ~NodeJob() = default;

  NodeId id_;
  // Run at once instead of as a job (ComputeAwaiter); kept here, next to id_, where it
  // takes padding: every awaiter is part of a worker's coroutine frame, and a million
  // workers hold theirs at once.
  bool on_the_spot_;
  models::ComputeCost cost_{};
  std::exception_ptr error_;
};

/// The awaiter of Node::compute(). `on_the_spot` (Node::compute_uncharged for a model
/// without math) runs the callable at once on the caller's thread instead of as a job;
/// it must then charge nothing (anything else is an error).
template <class F>
class ComputeAwaiter final : public NodeJob {
 public:
  ComputeAwaiter(Engine& engine, ComputeModel& model, ActivityObserver* observer, NodeId id, F fn,
                 bool on_the_spot = false)
      : NodeJob(id, on_the_spot),
        engine_(&engine),
        model_(&model),
        observer_(observer),
        fn_(std::move(fn)) {}

  bool await_ready() {
    if (!on_the_spot_) return false;
    try {
      cost_ = fn_();
      if (cost_.flops != 0 || cost_.seconds != 0)
        throw std::logic_error("math run on the spot charged a cost");
    } catch (...) {
      error_ = std::current_exception();
    }
    return true;
  }
  void await_suspend(std::coroutine_handle<> h) {
    waiting_ = h;
    engine_->submit(this);
  }
  void await_resume() {
    if (error_) std::rethrow_exception(error_);
  }

  void run() noexcept override {
    const int every = model_->wall_sample_every();
    JobWall wall;
    wall.timed = every == 1 || ++jobs_on_this_thread % std::uint64_t(every) == 0;
    const auto t0 = wall.timed ? std::chrono::steady_clock::now() : Clock::time_point{};
    current_job_wall = &wall;
    inside_compute_job = true;
    try {
      cost_ = fn_();
    } catch (...) {
      error_ = std::current_exception();
    }
    inside_compute_job = false;
    current_job_wall = nullptr;
    if (wall.timed) {
      job_s_ = every * std::chrono::duration<double>(Clock::now() - t0).count();
      compress_s_ = every * wall.compress_s;
    }
  }

  void finish() override {
    model_->record_job(job_s_, compress_s_);
    // A failed job resumes now (await_resume rethrows); a job that charges nothing (no
    // gradient, e.g. choco-gossip's compression) takes no simulated time, no jitter draw
    // and no trace span.
    if (error_ || (cost_.flops == 0 && cost_.seconds == 0)) {
      engine_->schedule_resume(engine_->now(), waiting_);
      return;
    }
    const SimTime duration = model_->duration(id_, cost_);
    if (observer_) observer_->on_compute(id_, engine_->now(), duration);  // tracing only
    engine_->schedule_resume(engine_->now() + duration, waiting_);
  }

  void replay() override {
    if (error_) return;
    try {
      (void)fn_();
    } catch (...) {
      error_ = std::current_exception();
    }
  }

 private:
  using Clock = std::chrono::steady_clock;
  Engine* engine_;
  ComputeModel* model_;
  ActivityObserver* observer_;
  F fn_;
  double job_s_ = 0;
  double compress_s_ = 0;
};

}  // namespace dlsim::sim
