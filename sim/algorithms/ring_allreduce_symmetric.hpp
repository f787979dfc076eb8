// An exact fast path for synchronous SGD over ring all-reduce on a symmetric cluster
// (the 65,536-worker timing what-ifs): a faithful simulation moves 2(n−1)·n chunks per
// iteration, 8.6e9 at n = 65,536; this path simulates one representative worker.
//
// Why it is exact. Worker i's step s ends at
//   T_i(s+1) = max(T_i(s) + D(c_i(s)), T_{i−1}(s) + D(c_{i−1}(s))),
// (its own chunk has arrived at i+1, and i−1's chunk has arrived at i), where
// D(c) = α + ⌈(bits(c) + H)/rate⌉ is the time of a lone transfer of chunk c: every
// transfer of a step has its own egress port, ingress port and link (i → i+1), and a
// worker's next send starts only after its previous one arrived, so no two transfers
// ever share a resource, under `fair` and `fifo` alike. Workers i−1 and i send
// consecutive chunks (c and c+1 mod n). If all workers start a step at τ, they end it at
// τ + max(D(c), D(c+1)); so when every pair of cyclically consecutive chunks contains a
// chunk of the largest duration D_max (always when M is divisible by n; for ResNet-50 at
// n = 65,536 the short chunks are isolated), every worker runs in lockstep and an
// iteration takes compute + 2(n−1)·D_max for everyone. Worker 0 is simulated (its
// compute, its deposits), the network counters are charged with the exact totals of
// the 2n(n−1) transfers, which all start before the iteration ends (hence compute > 0:
// the next iteration's first sends then start strictly later).
//
// Conditions, all checked (otherwise the full simulation runs): a model without math
// (`profile`); compressor none or fp16 without error feedback; n ≥ 2; no per-node NIC
// or per-link overrides, no schedule, no drops, no outages, no node failures; no
// per-worker compute factors other than 1, no jitter; compute time > 0; stop only by
// iterations or epochs, metrics every iterations or epochs; no tracing; the lockstep
// condition on chunk durations above.
#pragma once

#include "sim/algorithms/training.hpp"

namespace dlsim::sim {

/// Launches the fast path and returns true when every condition holds; otherwise
/// launches nothing and returns false.
bool launch_symmetric_ring_allreduce(Engine& engine, Training& t);

/// Tests compare the fast path with the full simulation: false forces the latter.
void set_ring_allreduce_fast_path(bool enabled);

}  // namespace dlsim::sim
