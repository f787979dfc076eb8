// Synchronous SGD over ring all-reduce (ALGORITHMS.md §2, DESIGN.md §7): the gradient
// is cut into n chunks; n−1 reduce-scatter steps (send chunk (i−s) mod n to i+1, add
// the chunk (i−s−1) mod n received from i−1) leave worker i owning the sum of chunk
// (i+1) mod n; n−1 all-gather steps pass the summed chunks around. Every step moves
// M/n bits per worker, so a round takes 2(n−1)(α + (M/n + H)/β) on a uniform network.
// Chunks travel as fp32 (only uncompressed messages are all-reducible); the owner of a
// chunk keeps the same fp32 rounding it sends, so all replicas stay identical.
#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/ring_allreduce_symmetric.hpp"
#include "sim/algorithms/worker_math.hpp"

namespace dlsim::sim {

namespace {

Task<void> worker(Training& t, int id) {
  Node& me = t.nodes[id];
  const int n = t.workers();
  const NodeId next = (id + 1) % n, prev = (id + n - 1) % n;
  WorkerMath math(t, id);
  const models::Index total = t.objective.parameters();
  const bool has_math = t.objective.has_math();
  auto begin = [&](int c) { return total * c / n; };
  auto length = [&](int c) { return begin(c + 1) - begin(c); };

  models::Vector x = t.initial, momentum, g, chunk;
  const models::Vector no_math;  // what a model without math encodes
  const std::uint64_t steps = 2 * std::uint64_t(n - 1);
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute([&] { return math.gradient(x, g); });  // own state only (node.hpp)
    auto send_chunk = [&](int c, std::uint64_t tag) {
      // the segment is encoded in place (no copy); without math only its length counts
      return me.send(next, tag,
                     has_math ? math.encode(g.segment(begin(c), length(c)), length(c))
                              : math.encode(no_math, length(c)));
    };
    for (int s = 0; s + 1 < n; ++s) {  // reduce-scatter
      const std::uint64_t tag = std::uint64_t(k) * steps + std::uint64_t(s);
      co_await send_chunk(((id - s) % n + n) % n, tag);
      Message m = co_await me.recv(prev, tag);
      math.decode(m, chunk);
      const int c = ((id - s - 1) % n + n) % n;
      if (has_math) g.segment(begin(c), length(c)) += chunk;
    }
    const int owned = (id + 1) % n;
    if (has_math && n > 1) {  // keep the fp32 rounding the others will receive
      Message self{id, id, 0, math.encode(g.segment(begin(owned), length(owned)), 0)};
      math.decode(self, chunk);
      g.segment(begin(owned), length(owned)) = chunk;
    }
    for (int s = 0; s + 1 < n; ++s) {  // all-gather
      const std::uint64_t tag = std::uint64_t(k) * steps + std::uint64_t(n - 1 + s);
      co_await send_chunk(((owned - s) % n + n) % n, tag);
      Message m = co_await me.recv(prev, tag);
      math.decode(m, chunk);
      const int c = ((owned - s - 1) % n + n) % n;
      if (has_math) g.segment(begin(c), length(c)) = chunk;
    }
    {
      ScopedWall timer(t.wall.math_s);
      if (has_math) g /= double(n);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, t.scenario.algorithm,
                    t.objective);
    }
    if (id == 0) t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

void launch_sgd_ring_allreduce(Engine& engine, Training& t) {
  if (launch_symmetric_ring_allreduce(engine, t)) return;  // exact, one representative
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i));
}

}  // namespace dlsim::sim
