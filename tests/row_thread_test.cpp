// RowThread (sim/metrics/row_thread.hpp): the background metrics thread of --threads 1.
// A batch's jobs run in order on one thread, not the caller's, and every batch on the
// same one (one malloc arena and one set of thread_local scratch for the run); one
// batch waits at most; the destructor lets a running or waiting batch finish first.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>
#include <vector>

#include "sim/metrics/row_thread.hpp"

using dlsim::sim::ComputeJob;
using dlsim::sim::RowThread;

namespace {

// Jobs run so far on the calling thread: a thread_local, as the evaluation's scratch is.
thread_local int runs_on_this_thread = 0;

// Notes the thread it ran on, its place in the order of all runs, and how many jobs its
// thread had run before it (a new thread starts from 0, even under a reused id).
struct NotingJob final : ComputeJob {
  std::atomic<int>* counter;
  int place = -1, runs_before = -1;
  std::thread::id ran_on;
  explicit NotingJob(std::atomic<int>& o) : counter(&o) {}
  void run() noexcept override {
    place = counter->fetch_add(1);
    ran_on = std::this_thread::get_id();
    runs_before = runs_on_this_thread++;
  }
  void finish() override {}
  int order() const override { return 0; }
};

// Says it started, then waits until released.
struct GateJob final : ComputeJob {
  std::promise<void> started;
  std::shared_future<void> release;
  std::atomic<bool> done{false};
  explicit GateJob(std::shared_future<void> r) : release(std::move(r)) {}
  void run() noexcept override {
    started.set_value();
    release.wait();
    done = true;
  }
  void finish() override {}
  int order() const override { return 0; }
};

}  // namespace

TEST_CASE("row thread: a batch runs in order on one other thread, every batch on the same") {
  std::atomic<int> order{0};
  std::vector<NotingJob> first(3, NotingJob(order)), second(2, NotingJob(order));
  std::vector<ComputeJob*> a, b;
  for (auto& j : first) a.push_back(&j);
  for (auto& j : second) b.push_back(&j);
  RowThread thread;
  thread.post(a).get();
  thread.post(b).get();
  for (int i = 0; i < 3; ++i) CHECK(first[std::size_t(i)].place == i);
  for (int i = 0; i < 2; ++i) CHECK(second[std::size_t(i)].place == 3 + i);
  const std::thread::id worker = first[0].ran_on;
  CHECK(worker != std::this_thread::get_id());
  for (const auto& j : first) CHECK(j.ran_on == worker);
  for (const auto& j : second) CHECK(j.ran_on == worker);
  // The same thread, not a new one under the same id: its thread_local state is kept.
  for (int i = 0; i < 5; ++i)
    CHECK((i < 3 ? first[std::size_t(i)] : second[std::size_t(i - 3)]).runs_before == i);
  thread.post({}).get();  // an empty batch is ready at once
}

TEST_CASE("row thread: one batch waits at most, and the destructor lets both finish") {
  std::promise<void> release;
  GateJob running(release.get_future().share());
  std::atomic<int> order{0};
  NotingJob waiting(order);
  ComputeJob* running_jobs[] = {&running};
  ComputeJob* waiting_jobs[] = {&waiting};
  std::future<void> first, second;
  std::thread releaser;
  {
    RowThread thread;
    first = thread.post(running_jobs);
    running.started.get_future().wait();  // the first batch is taken
    second = thread.post(waiting_jobs);   // waits behind it
    CHECK_THROWS_AS(thread.post(waiting_jobs), std::logic_error);
    // Released a little later, so that (most likely) ~RowThread is already waiting; the
    // checks below hold whichever comes first.
    releaser = std::thread([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      release.set_value();
    });
  }  // ~RowThread: both batches have run
  releaser.join();
  CHECK(running.done);
  CHECK(waiting.place == 0);
  CHECK(first.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
  CHECK(second.wait_for(std::chrono::seconds(0)) == std::future_status::ready);
}
