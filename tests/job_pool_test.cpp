// sim::JobPool (sim/engine/job_pool.hpp), the pool behind `--threads N`: every job of every
// phase runs exactly once, claims take one job when few are left and up to 64 when many
// are, jobs placed by order go to their thread's lane (which the others take from the
// tail), and a job posted beside the phases runs on a helper without holding up a phase (or,
// untaken, in wait_beside; withdrawn, never); of a batch beside, the thread that waits runs
// what no helper has taken.
#include <atomic>
#include <chrono>
#include <span>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "sim/engine/job_pool.hpp"

using namespace dlsim;
using sim::ComputeJob;

namespace {

// Writes its index into its own slot and counts its runs.
struct SlotJob final : ComputeJob {
  int id = 0;
  std::vector<int>* slots = nullptr;
  std::atomic<int> runs{0};
  void run() noexcept override {
    (*slots)[std::size_t(id)] += id;
    runs.fetch_add(1);
  }
  void finish() override {}
  int order() const override { return id; }
};

// n SlotJobs writing into one slot vector, and pointers to them for run_all().
struct SlotJobs {
  std::vector<SlotJob> jobs;
  std::vector<int> slots;
  std::vector<ComputeJob*> pointers;
  explicit SlotJobs(std::size_t n) : jobs(n), slots(n, 0) {
    for (std::size_t i = 0; i < n; ++i) {
      jobs[i].id = int(i);
      jobs[i].slots = &slots;
      pointers.push_back(&jobs[i]);
    }
  }
};

}  // namespace

TEST_CASE("the pool runs every job of every phase exactly once", "[threads]") {
  for (int threads : {1, 2, 3, 5}) {
    sim::JobPool pool(threads);
    REQUIRE(pool.threads() == threads);
    SlotJobs set(64);
    auto& [jobs, slots, pointers] = set;
    // Many short phases of varying sizes: a helper leaving a phase late must neither
    // run nor skip a job of the next one.
    int phases = 0;
    for (int round = 0; round < 3000; ++round) {
      const std::size_t n = std::size_t(1 + (round * 7) % 64);
      pool.run_all(std::span<ComputeJob* const>(pointers.data(), n));
      ++phases;
    }
    std::vector<int> expected_runs(jobs.size(), 0);
    for (int round = 0; round < phases; ++round)
      for (std::size_t i = 0; i < std::size_t(1 + (round * 7) % 64); ++i) ++expected_runs[i];
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      CHECK(jobs[i].runs.load() == expected_runs[i]);
      CHECK(slots[i] == int(i) * expected_runs[i]);
    }
  }
}

TEST_CASE("the pool's claims: one job when few are left, up to 64 when many are", "[threads]") {
  // Guided self-scheduling: a claim takes left / (8 * threads) jobs, clamped to [1, 64].
  CHECK(sim::JobPool::claim_size(1, 2) == 1);
  CHECK(sim::JobPool::claim_size(9, 2) == 1);  // nine heavy gradients: one at a time
  CHECK(sim::JobPool::claim_size(31, 2) == 1);
  CHECK(sim::JobPool::claim_size(32, 2) == 2);
  CHECK(sim::JobPool::claim_size(160, 2) == 10);
  CHECK(sim::JobPool::claim_size(160, 5) == 4);
  CHECK(sim::JobPool::claim_size(1'000'000, 2) == 64);
  for (std::size_t left = 1; left < 5000; ++left) {
    const std::size_t take = sim::JobPool::claim_size(left, 3);
    REQUIRE(take >= 1);
    REQUIRE(take <= left);
    REQUIRE(take <= 64);
  }
}

TEST_CASE("the pool runs every job of large phases exactly once", "[threads]") {
  // Phases whose claims take many jobs at a time, and whose ends (fewer left than a
  // claim) shrink them to one: no job run twice, none skipped, none beyond the phase.
  // Phases of more than 65,535 jobs run as several (a claim word counts in 16 bits).
  SlotJobs set(140'000);
  auto& [jobs, slots, pointers] = set;
  std::vector<int> expected_runs(jobs.size(), 0);
  for (int threads : {2, 3})
    for (const auto spread : {sim::JobPool::Spread::any, sim::JobPool::Spread::by_order}) {
      sim::JobPool pool(threads);
      for (std::size_t n :
           {20'000u, 1u, 4'097u, 63u, 513u, 65'535u, 65'536u, 131'071u, 12'345u, 140'000u}) {
        pool.run_all(std::span<ComputeJob* const>(pointers.data(), n), spread);
        for (std::size_t i = 0; i < n; ++i) ++expected_runs[i];
      }
    }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (jobs[i].runs.load() != expected_runs[i] || slots[i] != int(i) * expected_runs[i]) ++wrong;
  CHECK(wrong == 0);
}

namespace {

// A job of a given order() that records the thread that ran it. Each thread's jobs wait
// until the other thread has started one, so that both take part whatever the timing (a
// thread's first claim takes at most 12 of 200 jobs, leaving the other some).
struct PlacedJob final : ComputeJob {
  int node = 0;
  std::thread::id caller;
  std::atomic<int>*caller_started = nullptr, *helper_started = nullptr;
  std::thread::id ran_on;
  void run() noexcept override {
    ran_on = std::this_thread::get_id();
    const bool by_caller = ran_on == caller;
    (by_caller ? caller_started : helper_started)->fetch_add(1);
    while ((by_caller ? helper_started : caller_started)->load() == 0) std::this_thread::yield();
  }
  void finish() override {}
  int order() const override { return node; }
};

}  // namespace

namespace {

// Whether the jobs of [first, last) that `owner` ran come before all the others there.
bool owner_first(const std::vector<PlacedJob>& jobs, std::size_t first, std::size_t last,
                 std::thread::id owner) {
  std::size_t i = first;
  while (i < last && jobs[i].ran_on == owner) ++i;
  for (; i < last; ++i)
    if (jobs[i].ran_on == owner) return false;
  return true;
}

// Runs one phase of jobs of the given orders on `pool` (2 threads); returns the jobs.
std::vector<PlacedJob> run_placed(sim::JobPool& pool, const std::vector<int>& orders) {
  std::atomic<int> caller_started{0}, helper_started{0};
  std::vector<PlacedJob> jobs(orders.size());
  std::vector<ComputeJob*> pointers;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    jobs[i].node = orders[i];
    jobs[i].caller = std::this_thread::get_id();
    jobs[i].caller_started = &caller_started;
    jobs[i].helper_started = &helper_started;
    pointers.push_back(&jobs[i]);
  }
  pool.run_all(pointers, sim::JobPool::Spread::by_order);
  return jobs;
}

}  // namespace

TEST_CASE("jobs placed by order: a lane's thread takes its head, the other thread its tail",
          "[threads]") {
  // Spread::by_order gives thread l the nodes i with i · 2 / nodes == l (nodes: one more
  // than the largest order seen). Each thread takes its lane from the head and, once it is
  // empty, the other's from the tail; each job waits until the other thread has started
  // one. So, whatever the timing, in each lane the owner's jobs come first and the other
  // thread's last; a thread that took the next job instead would interleave them.
  const auto caller = std::this_thread::get_id();
  SECTION("nodes 0-199: lanes 0-99 and 100-199") {
    sim::JobPool pool(2);
    std::vector<int> orders(200);
    for (int i = 0; i < 200; ++i) orders[std::size_t(i)] = i;
    for (int round = 0; round < 20; ++round) {
      const auto jobs = run_placed(pool, orders);
      CHECK(jobs[0].ran_on == caller);
      CHECK(jobs[100].ran_on != caller);
      CHECK(owner_first(jobs, 0, 100, caller));
      CHECK(owner_first(jobs, 100, 200, jobs[100].ran_on));
    }
  }
  SECTION("every job node 1's: all in the helper's lane, the caller takes its tail") {
    sim::JobPool pool(2);
    for (int round = 0; round < 20; ++round) {
      const auto jobs = run_placed(pool, std::vector<int>(200, 1));
      std::size_t caller_count = 0;
      for (const PlacedJob& job : jobs) caller_count += job.ran_on == caller ? 1 : 0;
      CHECK(caller_count > 0);
      CHECK(caller_count < jobs.size());
      CHECK(jobs.back().ran_on == caller);  // the caller's first, from the tail
      CHECK(owner_first(jobs, 0, jobs.size(), jobs[0].ran_on));
      CHECK(jobs[0].ran_on != caller);
    }
  }
}

namespace {

// A job beside the phases: records the thread that ran it and how often; held (spinning)
// until released when `hold` is set.
struct BesideJob final : ComputeJob {
  std::atomic<int> runs{0};
  std::atomic<bool> started{false}, release{false};
  bool hold = false;
  std::thread::id ran_on;
  void run() noexcept override {
    ran_on = std::this_thread::get_id();
    started.store(true);
    while (hold && !release.load()) std::this_thread::yield();
    runs.fetch_add(1);
  }
  void finish() override {}
  int order() const override { return 0; }
};

// Waits (up to a minute: a liveness bound, not a speed one) for `flag`.
bool eventually(const std::atomic<bool>& flag) {
  for (int i = 0; i < 60'000 && !flag.load(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return flag.load();
}

}  // namespace

TEST_CASE("a job beside runs on a helper while the phases go on without it", "[threads]") {
  sim::JobPool pool(2);  // one helper
  CHECK(pool.beside_done());
  BesideJob beside;
  beside.hold = true;
  // Long enough for the helper to stop spinning and sleep: the post must wake it.
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  pool.post_beside(beside);
  REQUIRE(eventually(beside.started));  // the helper took it, not this thread
  CHECK(beside.ran_on != std::this_thread::get_id());
  CHECK_FALSE(pool.beside_done());
  // Its only helper busy, the pool's phases run on this thread alone, every job once.
  SlotJobs set(50);
  for (std::size_t n : {50u, 1u, 7u, 50u})
    pool.run_all(std::span<ComputeJob* const>(set.pointers.data(), n));
  for (std::size_t i = 0; i < set.jobs.size(); ++i)
    CHECK(set.jobs[i].runs.load() == (i == 0 ? 4 : i < 7 ? 3 : 2));
  CHECK_FALSE(pool.beside_done());
  beside.release.store(true);
  pool.wait_beside();
  CHECK(pool.beside_done());
  CHECK(beside.runs.load() == 1);
}

TEST_CASE("a job beside that no helper took runs in wait_beside; withdrawn, it never runs",
          "[threads]") {
  sim::JobPool alone(1);  // no helper: the job waits for wait_beside
  BesideJob job;
  alone.post_beside(job);
  CHECK_FALSE(alone.beside_done());
  CHECK(job.runs.load() == 0);
  alone.wait_beside();
  CHECK(alone.beside_done());
  CHECK(job.runs.load() == 1);
  CHECK(job.ran_on == std::this_thread::get_id());

  BesideJob withdrawn;
  alone.post_beside(withdrawn);
  alone.withdraw_beside();
  CHECK(alone.beside_done());
  alone.wait_beside();  // nothing posted: returns at once
  CHECK(withdrawn.runs.load() == 0);
}

TEST_CASE("a batch beside: the helpers take jobs one at a time, wait_beside runs the rest",
          "[threads]") {
  sim::JobPool pool(2);  // one helper
  std::vector<BesideJob> batch(10);
  batch[0].hold = true;  // the helper's first job: it takes no other until released
  std::vector<ComputeJob*> pointers;
  for (BesideJob& job : batch) pointers.push_back(&job);
  pool.post_beside(pointers);
  REQUIRE(eventually(batch[0].started));
  CHECK(batch[0].ran_on != std::this_thread::get_id());
  // Releases the helper's job once this thread has run the nine others (or after a minute,
  // so that a wait_beside that only waits fails below instead of hanging).
  std::atomic<bool> nine_ran{false};
  std::jthread releaser([&] {
    for (int i = 0; i < 60'000; ++i) {
      bool all = true;
      for (std::size_t j = 1; j < batch.size(); ++j) all = all && batch[j].runs.load() == 1;
      if (all) {
        nine_ran.store(true);
        break;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    batch[0].release.store(true);
  });
  pool.wait_beside();
  CHECK(pool.beside_done());
  CHECK(nine_ran.load());
  for (std::size_t j = 0; j < batch.size(); ++j) {
    INFO("job " << j);
    CHECK(batch[j].runs.load() == 1);
    if (j > 0) CHECK(batch[j].ran_on == std::this_thread::get_id());
  }

  // Without a helper nothing runs until wait_beside, which runs all; withdrawn, none runs.
  sim::JobPool alone(1);
  std::vector<BesideJob> waited(5), withdrawn(5);
  std::vector<ComputeJob*> waited_at, withdrawn_at;
  for (BesideJob& job : waited) waited_at.push_back(&job);
  for (BesideJob& job : withdrawn) withdrawn_at.push_back(&job);
  alone.post_beside(waited_at);
  CHECK_FALSE(alone.beside_done());
  alone.wait_beside();
  alone.post_beside(withdrawn_at);
  alone.withdraw_beside();
  CHECK(alone.beside_done());
  for (std::size_t j = 0; j < 5; ++j) {
    CHECK(waited[j].runs.load() == 1);
    CHECK(withdrawn[j].runs.load() == 0);
  }
}

TEST_CASE("jobs beside, posted between phases, each run exactly once", "[threads]") {
  // Posting, phases and waiting interleaved as the recorder does (one batch at a time);
  // batches of one to four jobs; every third batch is withdrawn instead: its jobs ran once
  // if a helper had taken them, else never.
  for (int threads : {2, 3}) {
    sim::JobPool pool(threads);
    SlotJobs set(40);
    std::vector<BesideJob> jobs(1500);
    std::vector<ComputeJob*> pointers;
    for (BesideJob& job : jobs) pointers.push_back(&job);
    std::vector<bool> withdrawn(jobs.size(), false);
    std::size_t next = 0, phase_runs_expected = 0;
    for (std::size_t round = 0; next + 4 <= jobs.size(); ++round) {
      const std::size_t size = 1 + round % 4;
      if (size == 1)
        pool.post_beside(jobs[next]);
      else
        pool.post_beside(std::span<ComputeJob* const>(&pointers[next], size));
      const std::size_t phase = 1 + round % 40;
      pool.run_all(std::span<ComputeJob* const>(set.pointers.data(), phase));
      phase_runs_expected += phase;
      if (round % 3 == 2) {
        pool.withdraw_beside();
        for (std::size_t j = next; j < next + size; ++j) withdrawn[j] = true;
      } else {
        pool.wait_beside();
      }
      REQUIRE(pool.beside_done());
      next += size;
    }
    std::size_t wrong = 0;
    for (std::size_t j = 0; j < jobs.size(); ++j) {
      const int runs = jobs[j].runs.load();
      if (j >= next ? runs != 0 : withdrawn[j] ? runs > 1 : runs != 1) ++wrong;
    }
    CHECK(wrong == 0);
    std::size_t phase_runs = 0;
    for (const SlotJob& job : set.jobs) phase_runs += std::size_t(job.runs.load());
    CHECK(phase_runs == phase_runs_expected);
  }
}

TEST_CASE("resolve_threads: 0 means every hardware thread", "[threads]") {
  CHECK(sim::resolve_threads(3) == 3);
  CHECK(sim::resolve_threads(0) >= 1);
}
