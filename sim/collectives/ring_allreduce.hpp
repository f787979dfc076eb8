// The ring all-reduce collective (docs/algorithms.md §2, docs/design.md §7; Patarasuk,
// Yuan, "Bandwidth Optimal All-reduce Algorithms for Clusters of Workstations", JPDC
// 69(2), 2009): the contribution is cut into n chunks, chunk c = [⌊Mc/n⌋, ⌊M(c+1)/n⌋);
// n−1 reduce-scatter steps (worker i sends chunk (i−s) mod n to i+1 and adds the chunk
// (i−s−1) mod n it receives from i−1) leave worker i owning the sum of chunk (i+1) mod n;
// n−1 all-gather steps pass the summed chunks around. Every step moves M/n coordinates
// per worker, so on a uniform network a round takes
//   2(n−1)(α + (M/n + H)/β)      (M/n in bits: the chunk's encoded size).
// Partial sums are re-encoded at every hop, so only all-reducible formats work (none,
// fp16, and fp32 rounds); the owner of a summed chunk keeps the rounding it sends, so
// every worker gets the same mean = (summed chunks)/n. Everything runs on the engine
// thread inside exchange(); contribute() only keeps v, result() divides by n.
//
// The exact shortcut (the 65,536-worker timing what-ifs): a faithful simulation moves
// 2(n−1)·n chunks per round, 8.6e9 at n = 65,536; when exact_for() holds only worker 0
// is simulated (workers_to_simulate() = 1) and its exchange() is one sleep of
// 2(n−1)·D_max plus the network totals of the round, charged at once. Why it is exact:
// worker i's step s ends at
//   T_i(s+1) = max(T_i(s) + D(c_i(s)), T_{i−1}(s) + D(c_{i−1}(s))),
// (its own chunk has arrived at i+1, and i−1's chunk has arrived at i), where
// D(c) = α + ⌈(bits(c) + H)/rate⌉ is the time of a lone transfer of chunk c: every
// transfer of a step has its own egress port, ingress port and link (i → i+1), and a
// worker's next send starts only after its previous one arrived, so no two transfers
// ever share a resource, under `fair` and `fifo` alike. Workers i−1 and i send
// consecutive chunks (c and c+1 mod n). If all workers start a step at τ, they end it at
// τ + max(D(c), D(c+1)); so when every pair of cyclically consecutive chunks contains a
// chunk of the largest duration D_max (always when M is divisible by n; for ResNet-50 at
// n = 65,536 the short chunks are isolated), every worker runs in lockstep and a round
// takes 2(n−1)·D_max for everyone. The 2n(n−1) transfers all start before the round
// ends, and the next round's first sends start strictly later when every worker
// computes for a positive time between rounds (the caller's `compute_per_round`).
//
// exact_for's conditions, all checked: a model without math (`profile`); an
// all-reducible compressor (none or fp16, no error feedback); n ≥ 2; no per-node NIC or
// per-link overrides, no schedule, no drops, no outages, no node failures; no per-worker
// compute factors other than 1, no jitter; compute_per_round given and > 0; stop only by
// iterations or epochs, metrics every iterations or epochs; no tracing; the lockstep
// condition on chunk durations above.
#pragma once

#include <optional>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace dlsim::sim {

class RingAllReduce final : public Collective {
 public:
  struct Options {
    /// The scenario's compressor (the chunks' format), for the shortcut's chunk sizes.
    CompressorSpec compressor;
    /// The compute every worker does before each round, the same for all (SGD: one
    /// batch gradient); absent, the shortcut is never taken (the SVRG family's rounds
    /// alternate snapshot and inner steps, and it keeps every transfer simulated).
    std::optional<models::ComputeCost> compute_per_round;
    /// With n = 1 no message is sent: true still rounds the lone contribution through
    /// the format (every worker gets (1/n) Σ decode(encode(v_i)), the SVRG family's
    /// mean); false leaves it exact (SGD's ring always did).
    bool round_alone = true;
  };

  RingAllReduce(Training& training, Options options);

  /// Whether the exact shortcut holds for this run (conditions above).
  static bool exact_for(const Training& training, const Options& options);
  /// The same before the run is built, from the scenario (as if without --trace), and
  /// false when tests switched the shortcut off: the memory estimate counts one worker
  /// process instead of n when it holds.
  static bool exact_for(const Scenario& scenario, const models::Objective& objective,
                        const Options& options);
  /// Whether this collective takes it (exact_for, unless tests switched it off).
  bool exact() const { return exact_; }

  std::unique_ptr<Endpoint> join(int id, WorkerMath& math) override;
  int workers_to_simulate() const override { return exact_ ? 1 : t_.workers(); }

  // Exact network totals of one round and the duration of its longest step.
  struct Lockstep {
    SimTime step;  // D_max
    Bits payload_bits = 0;
    std::uint64_t bytes_wire = 0;
    std::uint64_t messages = 0;
  };

 private:
  Training& t_;
  Options options_;
  std::optional<Lockstep> lockstep_;  // set when exact
  bool exact_ = false;
};

/// Tests compare the shortcut with the full simulation: false forces the latter.
void set_ring_allreduce_fast_path(bool enabled);

}  // namespace dlsim::sim
