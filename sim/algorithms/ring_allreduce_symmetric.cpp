#include "sim/algorithms/ring_allreduce_symmetric.hpp"

#include <algorithm>
#include <atomic>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"

namespace dlsim::sim {

namespace {

std::atomic<bool> fast_path_enabled{true};

bool symmetric_cluster(const Training& t) {
  const Scenario& s = t.scenario;
  const NetworkSpec& net = s.network;
  const bool unit_factors = std::all_of(s.compute.per_worker.begin(), s.compute.per_worker.end(),
                                        [](double f) { return f == 1.0; });
  const bool by_iterations = !s.stop.sim_time && !s.stop.bits && !s.stop.target_loss &&
                             s.metrics.every != MetricsSpec::Every::sim_time;
  return !t.objective.has_math() && t.workers() >= 2 &&
         (s.algorithm.compressor.kind == "none" || s.algorithm.compressor.kind == "fp16") &&
         !s.algorithm.compressor.error_feedback && net.nodes.empty() && net.links.empty() &&
         net.schedule.empty() && net.down.empty() && net.fail.empty() && t.failures == nullptr &&
         net.drop_probability == 0 && unit_factors && s.compute.jitter == 0 && by_iterations &&
         t.nodes.front().network().observer() == nullptr;
}

// Exact network totals of one iteration and the duration of its longest step.
struct Iteration {
  SimTime step;  // D_max
  Bits payload_bits = 0;
  std::uint64_t bytes_wire = 0;
  std::uint64_t messages = 0;
};

// Chunk c has length begin(c+1) − begin(c) with begin(c) = ⌊M c / n⌋, as in
// sgd_ring_allreduce.cpp; its bits are whatever the compressor charges for it.
std::optional<Iteration> lockstep_iteration(const Training& t, WorkerMath& math) {
  const int n = t.workers();
  const models::Index total = t.objective.parameters();
  const Network& network = t.nodes.front().network();
  const NetworkConfig& config = network.config();
  const LinkParams link = config.link(0, 1);
  const double rate = std::min({link.bandwidth, config.egress(0), config.ingress(1)});
  const Bits header = config.header();
  // Two lengths at most (⌊M/n⌋ and ⌈M/n⌉): encode each once.
  std::vector<std::pair<models::Index, Bits>> bits_of_length;
  auto chunk_bits = [&](models::Index length) {
    for (const auto& [l, b] : bits_of_length)
      if (l == length) return b;
    const Bits b = math.encode(models::Vector(), length)->bits;
    bits_of_length.emplace_back(length, b);
    return b;
  };
  auto length = [&](int c) { return total * (c + 1) / n - total * c / n; };
  auto duration = [&](Bits bits) {
    return link.latency + transmission_time(double(bits + header), rate);
  };
  std::vector<SimTime> d(static_cast<std::size_t>(n));
  Iteration it;
  for (int c = 0; c < n; ++c) {
    const Bits bits = chunk_bits(length(c));
    d[c] = duration(bits);
    it.payload_bits += bits;
    it.bytes_wire += (bits + header + 7) / 8;
  }
  it.step = *std::max_element(d.begin(), d.end());
  for (int c = 0; c < n; ++c)
    if (std::max(d[c], d[(c + 1) % n]) != it.step) return std::nullopt;  // workers drift
  // Every step, the n workers send the n chunks once each; 2(n−1) steps.
  const std::uint64_t steps = 2 * std::uint64_t(n - 1);
  it.payload_bits *= steps;
  it.bytes_wire *= steps;
  it.messages = steps * std::uint64_t(n);
  return it;
}

// Worker 0 of sgd_ring_allreduce.cpp with the 2(n−1) steps collapsed into one sleep.
Task<void> representative(Training& t, Iteration it, std::unique_ptr<WorkerMath> math) {
  Node& me = t.nodes[0];
  const int n = t.workers();
  models::Vector x = t.initial, momentum, g;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    co_await me.compute([&] { return math->gradient(x, g); });
    co_await me.sleep(SimTime::from_ps(2 * std::int64_t(n - 1) * it.step.ps));
    me.network().charge(it.payload_bits, it.bytes_wire, it.messages);
    {
      ScopedWall timer(t.wall.math_s);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, t.scenario.algorithm,
                    t.objective);
    }
    t.recorder.deposit(0, k + 1, x);
  }
}

}  // namespace

void set_ring_allreduce_fast_path(bool enabled) {
  fast_path_enabled = enabled;
}

bool launch_symmetric_ring_allreduce(Engine& engine, Training& t) {
  if (!fast_path_enabled || !symmetric_cluster(t)) return false;
  auto math = std::make_unique<WorkerMath>(t, 0);
  const std::optional<Iteration> it = lockstep_iteration(t, *math);
  if (!it) return false;
  // compute > 0 (ComputeModel::duration with factor 1 and no jitter; no data, so the
  // batch is always batch_size).
  const models::ComputeCost cost = t.objective.gradient_cost(t.scenario.algorithm.batch_size);
  if (SimTime::from_seconds(cost.flops / t.scenario.compute.speed + cost.seconds) <= SimTime{})
    return false;
  engine.spawn(representative(t, *it, std::move(math)));
  return true;
}

}  // namespace dlsim::sim
