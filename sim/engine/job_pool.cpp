// JobPool (job_pool.hpp): a phase publishes its jobs, bumps `generation_` and works
// along; helpers claim indices from `claim_` and count finished jobs in `done_`.
// `claim_` holds (generation << 32) | next index and is advanced by compare-and-swap
// only while its generation is the claimer's, so a helper still leaving an earlier
// phase can neither take nor skip an index of the current one. A new phase first closes
// the claim word (its new generation, no index left) and only then publishes its job
// count (release): a helper that read the old claim word and then the new count (more
// jobs than the old phase had) would otherwise win its compare-and-swap on the old word
// and run a job of the new phase that is not its to run (found by ThreadSanitizer,
// `make tsan`: a read of jobs_ racing with its write).
// Jobs beside are claimed the same way, one at a time, from `beside_claim_`; a post bumps
// `generation_` too, which wakes a sleeping helper (work() of a generation whose claim word
// was never opened returns at once). Each finished job's release of `beside_pending_`
// publishes its results to whoever sees the count at 0.
#include "sim/engine/job_pool.hpp"

#include <algorithm>
#include <chrono>

namespace dlsim::sim {

namespace {

// Busy-wait this long before sleeping. Between two phases the engine thread runs the
// instant's events alone (about 85 µs in case (b) of bench/e2e.py), and a futex wake-up
// cost 100-250 µs on the 2-core VM of README "Threads that wait awake"; a spin of 1,000
// pauses (19 µs there) slept at every phase. libgomp spins about as long by default
// (GOMP_SPINCOUNT).
constexpr auto kSpinTime = std::chrono::microseconds(500);

// The index half of a closed claim word: no job count reaches it.
constexpr std::uint64_t kClosed = 0xffffffffu;

// Guided self-scheduling: a claim takes 1/(kClaimsPerThread · threads) of the jobs left,
// at least one and at most kMaxClaim. A phase of a few heavy jobs (nine gradients) is
// still handed out one job at a time; a phase of a million light ones (a profile model's
// sizes) no longer contends on the claim and done words once per job: each of those is a
// cache line moving between cores, about as long as such a job.
constexpr std::size_t kClaimsPerThread = 8;
constexpr std::size_t kMaxClaim = 64;

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// A busy wait's budget: spin() pauses once and says whether the waiter may go on spinning
// (the clock is read every 64 rounds).
class SpinBudget {
 public:
  SpinBudget() : deadline_(std::chrono::steady_clock::now() + kSpinTime) {}
  bool spin() {
    cpu_relax();
    return ++rounds_ % 64 != 0 || std::chrono::steady_clock::now() < deadline_;
  }

 private:
  std::chrono::steady_clock::time_point deadline_;
  unsigned rounds_ = 0;
};

}  // namespace

int resolve_threads(int requested) {
  if (requested > 0) return requested;
  const unsigned hardware = std::thread::hardware_concurrency();
  return hardware == 0 ? 1 : int(hardware);
}

JobPool::JobPool(int threads) {
  for (int i = 1; i < threads; ++i)
    helpers_.emplace_back([this](std::stop_token stop) { helper_loop(stop); });
}

JobPool::~JobPool() {
  for (auto& h : helpers_) h.request_stop();
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  helpers_.clear();  // joins
}

void JobPool::run_all(std::span<ComputeJob* const> jobs) {
  if (jobs.empty()) return;
  if (helpers_.empty() || jobs.size() == 1) {
    for (ComputeJob* job : jobs) job->run();
    return;
  }
  const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  claim_.store((generation << 32) | kClosed, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  jobs_ = jobs.data();
  count_.store(jobs.size(), std::memory_order_release);  // orders the closing before it
  claim_.store(generation << 32, std::memory_order_release);
  bump_generation(generation);
  work(generation);
  const std::size_t n = jobs.size();
  for (SpinBudget budget; budget.spin();)
    if (done_.load(std::memory_order_acquire) == n) return;
  for (std::size_t d = done_.load(std::memory_order_acquire); d != n;
       d = done_.load(std::memory_order_acquire))
    done_.wait(d, std::memory_order_acquire);
}

std::size_t JobPool::claim_size(std::size_t left, int threads) {
  return std::clamp<std::size_t>(left / (kClaimsPerThread * std::size_t(threads)), 1, kMaxClaim);
}

void JobPool::work(std::uint64_t generation) {
  std::uint64_t claim = claim_.load(std::memory_order_acquire);
  while (true) {
    if (claim >> 32 != (generation & 0xffffffffu)) return;  // a later phase: not ours
    const std::size_t i = std::size_t(claim & 0xffffffffu);
    // If the compare-and-swap below succeeds, n is this phase's count: a newer count is
    // published only after the claim word is closed, which would fail it.
    const std::size_t n = count_.load(std::memory_order_acquire);
    if (i >= n) return;
    const std::size_t take = claim_size(n - i, threads());
    if (!claim_.compare_exchange_weak(claim, claim + take, std::memory_order_acq_rel,
                                      std::memory_order_acquire))
      continue;  // `claim` was reloaded
    // Indices [i, i + take) of our phase are ours; the phase cannot end before we count
    // them done.
    const std::span<ComputeJob* const> mine(jobs_ + i, take);
    for (std::size_t j = 0; j < take; ++j) {
      prefetch_job_ahead(mine, j);
      mine[j]->run();
    }
    if (done_.fetch_add(take, std::memory_order_acq_rel) + take == n) done_.notify_one();
    claim = claim_.load(std::memory_order_acquire);
  }
}

void JobPool::bump_generation(std::uint64_t generation) {
  generation_.store(generation, std::memory_order_release);
  generation_.notify_all();
}

void JobPool::post_beside(std::span<ComputeJob* const> jobs) {
  if (jobs.empty()) return;
  // As run_all: close the claim word, publish the jobs, then open it, so a claimer still
  // holding the previous batch's word cannot take an index of this one.
  const std::uint64_t batch = ++beside_batch_ & 0xffffffffu;
  beside_claim_.store((batch << 32) | kClosed, std::memory_order_relaxed);
  beside_jobs_ = jobs.data();
  beside_pending_.store(std::uint32_t(jobs.size()), std::memory_order_relaxed);
  beside_count_.store(jobs.size(), std::memory_order_release);  // orders the closing before it
  beside_claim_.store(batch << 32, std::memory_order_release);
  bump_generation(generation_.load(std::memory_order_relaxed) + 1);
}

bool JobPool::run_beside() {
  std::uint64_t claim = beside_claim_.load(std::memory_order_acquire);
  while (true) {
    const std::size_t i = std::size_t(claim & 0xffffffffu);
    // If the compare-and-swap succeeds, n is this batch's count (as in work()).
    const std::size_t n = beside_count_.load(std::memory_order_acquire);
    if (i >= n) return false;  // none left, or closed
    if (!beside_claim_.compare_exchange_weak(claim, claim + 1, std::memory_order_acq_rel,
                                             std::memory_order_acquire))
      continue;  // `claim` was reloaded
    beside_jobs_[i]->run();
    // The release publishes the job's results to whoever sees the count at 0.
    if (beside_pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) beside_pending_.notify_one();
    return true;
  }
}

void JobPool::wait_beside() {
  while (run_beside()) {
  }
  for (SpinBudget budget; budget.spin();)
    if (beside_done()) return;
  for (std::uint32_t p = beside_pending_.load(std::memory_order_acquire); p != 0;
       p = beside_pending_.load(std::memory_order_acquire))
    beside_pending_.wait(p, std::memory_order_acquire);
}

void JobPool::withdraw_beside() {
  // Closing the claim word takes every index not claimed yet: those jobs never run.
  const std::uint64_t batch = beside_batch_ & 0xffffffffu;
  const std::uint64_t claim =
      beside_claim_.exchange((batch << 32) | kClosed, std::memory_order_acq_rel);
  const std::size_t next = std::size_t(claim & 0xffffffffu);
  const std::size_t n = beside_count_.load(std::memory_order_relaxed);
  if (next < n &&
      beside_pending_.fetch_sub(std::uint32_t(n - next), std::memory_order_acq_rel) == n - next)
    beside_pending_.notify_one();
  wait_beside();  // for the helpers' ones
}

void JobPool::helper_loop(std::stop_token stop) {
  // Stop is requested before the destructor's last bump of `generation_`: a helper that
  // has seen that bump also sees the request, one that has not will be woken by it.
  std::uint64_t seen = generation_.load(std::memory_order_acquire);
  while (!stop.stop_requested()) {
    for (SpinBudget budget; generation_.load(std::memory_order_acquire) == seen;) {
      if (run_beside())
        budget = SpinBudget();  // then look for a phase again
      else if (!budget.spin()) {
        generation_.wait(seen, std::memory_order_acquire);
        break;
      }
    }
    if (stop.stop_requested()) return;
    seen = generation_.load(std::memory_order_acquire);
    work(seen);
  }
}

}  // namespace dlsim::sim
