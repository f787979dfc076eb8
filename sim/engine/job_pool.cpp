// JobPool (job_pool.hpp): a phase publishes its jobs, bumps `generation_` and works
// along; helpers claim jobs from the lanes and count finished jobs in `done_`. A lane's
// claim word holds (generation << 32) | (head << 16) | tail: its jobs not claimed yet are
// jobs_[head, tail). The lane's thread takes from the head, the others (once their own
// lane is empty) from the tail, so that a thread that comes late loses the jobs it would
// have run last, not the next ones. A phase has at most kMostJobs jobs (run_all splits
// larger ones). A word is advanced by compare-and-swap only while its generation is the
// claimer's, so a helper still leaving an earlier phase can neither take nor skip a job
// of the current one. A new phase first closes every claim word (its new generation, no
// job left) and only then publishes its jobs and opens the words (release): a helper that
// read an old word and then a new job count (more jobs than the old phase had) would
// otherwise win its compare-and-swap on the old word and run a job of the new phase that
// is not its to run (found by ThreadSanitizer, `make tsan`: a read of jobs_ racing with
// its write).
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

// The index half of a closed claim word of the batch beside: no job count reaches it.
constexpr std::uint64_t kClosed = 0xffffffffu;

// A lane's claim word (the file's comment).
std::uint64_t lane_word(std::uint64_t generation, std::size_t head, std::size_t tail) {
  return (generation << 32) | (std::uint64_t(head) << 16) | std::uint64_t(tail);
}
std::size_t head_of(std::uint64_t word) {
  return std::size_t(word >> 16) & 0xffffu;
}
std::size_t tail_of(std::uint64_t word) {
  return std::size_t(word) & 0xffffu;
}

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

JobPool::JobPool(int threads) : lanes_(std::size_t(std::max(threads, 1))) {
  for (int i = 1; i < threads; ++i)
    helpers_.emplace_back([this, i](std::stop_token stop) { helper_loop(stop, i); });
}

JobPool::~JobPool() {
  for (auto& h : helpers_) h.request_stop();
  generation_.fetch_add(1, std::memory_order_release);
  generation_.notify_all();
  helpers_.clear();  // joins
}

void JobPool::run_all(std::span<ComputeJob* const> jobs, Spread spread) {
  if (jobs.empty()) return;
  if (helpers_.empty() || jobs.size() == 1) {
    for (ComputeJob* job : jobs) job->run();
    return;
  }
  for (std::size_t from = 0; from < jobs.size(); from += kMostJobs)
    run_phase(jobs.subspan(from, std::min(kMostJobs, jobs.size() - from)), spread);
}

void JobPool::run_phase(std::span<ComputeJob* const> jobs, Spread spread) {
  const std::uint64_t generation = generation_.load(std::memory_order_relaxed) + 1;
  for (Lane& lane : lanes_)
    lane.claim.store(lane_word(generation, 0, 0), std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  // Lane l is jobs_[bounds_[l], bounds_[l + 1]).
  const std::size_t lanes = lanes_.size(), n = jobs.size();
  bounds_.assign(lanes + 1, 0);
  if (spread == Spread::by_order) {
    // Lanes of consecutive orders (node ids): node i's lane is i · lanes / nodes, with
    // `nodes` one more than the largest order seen so far (a stable split after the first
    // phase). Consecutive nodes, not every other one, so that a thread's nodes' states lie
    // together (small ones share cache lines and pages).
    const auto node = [](const ComputeJob* job) { return std::size_t(std::max(job->order(), 0)); };
    for (const ComputeJob* job : jobs) nodes_ = std::max(nodes_, node(job) + 1);
    lane_of_.resize(n);
    for (std::size_t j = 0; j < n; ++j) {
      lane_of_[j] = node(jobs[j]) * lanes / nodes_;
      ++bounds_[lane_of_[j] + 1];
    }
    for (std::size_t l = 0; l < lanes; ++l) bounds_[l + 1] += bounds_[l];
    cursors_.assign(bounds_.begin(), bounds_.end() - 1);
    placed_.resize(n);
    for (std::size_t j = 0; j < n; ++j) placed_[cursors_[lane_of_[j]]++] = jobs[j];
    jobs_ = placed_.data();
  } else {
    for (std::size_t l = 0; l <= lanes; ++l) bounds_[l] = n * l / lanes;  // even blocks
    jobs_ = jobs.data();
  }
  count_.store(n, std::memory_order_relaxed);
  for (std::size_t l = 0; l < lanes; ++l)  // publishes jobs_ and count_ with the word
    lanes_[l].claim.store(lane_word(generation, bounds_[l], bounds_[l + 1]),
                          std::memory_order_release);
  bump_generation(generation);
  work(generation, 0);
  for (SpinBudget budget; budget.spin();)
    if (done_.load(std::memory_order_acquire) == n) return;
  for (std::size_t d = done_.load(std::memory_order_acquire); d != n;
       d = done_.load(std::memory_order_acquire))
    done_.wait(d, std::memory_order_acquire);
}

std::size_t JobPool::claim_size(std::size_t left, int threads) {
  return std::clamp<std::size_t>(left / (kClaimsPerThread * std::size_t(threads)), 1, kMaxClaim);
}

void JobPool::work(std::uint64_t generation, int own) {
  const std::size_t lanes = lanes_.size();
  for (std::size_t k = 0; k < lanes; ++k) {  // our lane, then the others'
    Lane& lane = lanes_[(std::size_t(own) + k) % lanes];
    const bool from_tail = k > 0;
    std::uint64_t claim = lane.claim.load(std::memory_order_acquire);
    while (true) {
      if (claim >> 32 != (generation & 0xffffffffu)) return;  // a later phase: not ours
      const std::size_t head = head_of(claim), tail = tail_of(claim);
      if (head >= tail) break;  // this lane is done (or closed): the next one
      // If the compare-and-swap below succeeds, n is this phase's count: a newer one is
      // published only after the claim word is closed, which would fail it.
      const std::size_t n = count_.load(std::memory_order_relaxed);
      const std::size_t take = claim_size(tail - head, int(lanes));
      const std::size_t first = from_tail ? tail - take : head;
      const std::uint64_t claimed =
          from_tail ? lane_word(generation, head, first) : lane_word(generation, head + take, tail);
      if (!lane.claim.compare_exchange_weak(claim, claimed, std::memory_order_acq_rel,
                                            std::memory_order_acquire))
        continue;  // `claim` was reloaded
      // Jobs [first, first + take) of our phase are ours; the phase cannot end before we
      // count them done.
      const std::span<ComputeJob* const> mine(jobs_ + first, take);
      for (std::size_t j = 0; j < take; ++j) {
        prefetch_job_ahead(mine, j);
        mine[j]->run();
      }
      if (done_.fetch_add(take, std::memory_order_acq_rel) + take == n) done_.notify_one();
      claim = lane.claim.load(std::memory_order_acquire);
    }
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

void JobPool::helper_loop(std::stop_token stop, int lane) {
  // Stop is requested before the destructor's last bump of `generation_`: a helper that
  // has seen that bump also sees the request, one that has not will be woken by it.
  // Generation 0 is the pool's own: a helper that starts after the first phase has
  // begun still joins it (it is not taken as seen).
  std::uint64_t seen = 0;
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
    work(seen, lane);
  }
}

}  // namespace dlsim::sim
