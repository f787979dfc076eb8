#include "sim/collectives/ring_allreduce.hpp"

#include "models/compress/factory.hpp"

#include <algorithm>
#include <atomic>

namespace dlsim::sim {

namespace {

std::atomic<bool> fast_path_enabled{true};

// Chunk c of a vector of `total` coordinates cut into n: [⌊total·c/n⌋, ⌊total·(c+1)/n⌋).
struct Chunks {
  models::Index total;
  int n;
  models::Index begin(int c) const { return total * c / n; }
  models::Index length(int c) const { return begin(c + 1) - begin(c); }
  int wrap(int c) const { return ((c % n) + n) % n; }
};

// ---------------------------------------------------------------- every transfer
class RingEnd final : public Endpoint {
 public:
  RingEnd(Training& t, int id, WorkerMath& math, bool round_alone)
      : t_(t),
        me_(t.nodes[std::size_t(id)]),
        id_(id),
        math_(math),
        round_alone_(round_alone),
        math_here_(t.computes(id)),
        chunks_{t.objective.parameters(), t.workers()},
        // one buffer per chunk (lengths differ by up to one, and a resized Eigen vector
        // reallocates), kept between rounds: a round allocates nothing per message
        chunk_(std::size_t(t.workers())) {}

  void contribute(const models::Vector& v, RoundFormat format) override {
    format_ = format;
    sum_ = v;
  }

  Task<void> exchange() override {
    const int n = chunks_.n;
    const NodeId next = (id_ + 1) % n, prev = (id_ + n - 1) % n;
    const bool has_math = math_here_;
    const std::uint64_t steps = 2 * std::uint64_t(n - 1);
    for (int s = 0; s + 1 < n; ++s) {  // reduce-scatter
      const std::uint64_t tag = round_ * steps + std::uint64_t(s);
      co_await me_.send(next, tag, payload_of(chunks_.wrap(id_ - s)));
      Message m = co_await me_.recv(prev, tag);
      const int c = chunks_.wrap(id_ - s - 1);
      decode_in(math_, m, format_, chunk_[std::size_t(c)]);
      if (has_math) sum_.segment(chunks_.begin(c), chunks_.length(c)) += chunk_[std::size_t(c)];
    }
    const int owned = chunks_.wrap(id_ + 1);
    if (n > 1) {  // keep the rounding the others will receive
      const Payload self = payload_of(owned);
      models::Vector& chunk = chunk_[std::size_t(owned)];
      decode_in(math_, Message{id_, id_, 0, self}, format_, chunk);
      if (has_math) sum_.segment(chunks_.begin(owned), chunks_.length(owned)) = chunk;
    } else if (has_math && round_alone_) {  // its message goes nowhere but is rounded
      decode_in(math_, Message{id_, id_, 0, encode_in(math_, sum_, chunks_.total, format_)},
                format_, sum_);
    }
    for (int s = 0; s + 1 < n; ++s) {  // all-gather
      const std::uint64_t tag = round_ * steps + std::uint64_t(n - 1 + s);
      co_await me_.send(next, tag, payload_of(chunks_.wrap(owned - s)));
      Message m = co_await me_.recv(prev, tag);
      const int c = chunks_.wrap(owned - s - 1);
      decode_in(math_, m, format_, chunk_[std::size_t(c)]);
      if (has_math) sum_.segment(chunks_.begin(c), chunks_.length(c)) = chunk_[std::size_t(c)];
    }
    ++round_;
  }

  void result(models::Vector& out) override {
    if (!math_here_) {
      out.resize(0);
      return;
    }
    out = sum_ / double(chunks_.n);
  }

 private:
  // Chunk c of the running sum, encoded (without math only its length counts).
  Payload payload_of(int c) {
    models::Vector& chunk = chunk_[std::size_t(c)];
    if (math_here_) chunk = sum_.segment(chunks_.begin(c), chunks_.length(c));
    return encode_in(math_, chunk, chunks_.length(c), format_);
  }

  Training& t_;
  Node& me_;
  int id_;
  WorkerMath& math_;
  bool round_alone_;
  bool math_here_;  // a model with math, and this rank owns the worker (rank_jobs.hpp)
  Chunks chunks_;
  RoundFormat format_;
  models::Vector sum_;
  std::vector<models::Vector> chunk_;
  std::uint64_t round_ = 0;
};

// ---------------------------------------------------------------- the exact shortcut
// Worker 0 standing for all n: the 2(n−1) steps collapsed into one sleep.
class LockstepEnd final : public Endpoint {
 public:
  LockstepEnd(Training& t, RingAllReduce::Lockstep lockstep)
      : me_(t.nodes.front()), n_(t.workers()), lockstep_(lockstep) {}

  void contribute(const models::Vector&, RoundFormat) override {}  // no math

  Task<void> exchange() override {
    co_await me_.sleep(SimTime::from_ps(2 * std::int64_t(n_ - 1) * lockstep_.step.ps));
    me_.network().charge(lockstep_.payload_bits, lockstep_.bytes_wire, lockstep_.messages);
  }

  void result(models::Vector& out) override { out.resize(0); }

 private:
  Node& me_;
  int n_;
  RingAllReduce::Lockstep lockstep_;
};

// What the shortcut looks at: the scenario, the objective, the network as configured, and
// whether anything watches or fails nodes (a tracer, node failures).
struct Cluster {
  const Scenario& scenario;
  const models::Objective& objective;
  const NetworkConfig& network;
  bool watched = false;
  int workers() const { return int(scenario.workers); }
};

bool symmetric_cluster(const Cluster& t, const RingAllReduce::Options& o) {
  const Scenario& s = t.scenario;
  const NetworkSpec& net = s.network;
  const bool unit_factors = std::all_of(s.compute.per_worker.begin(), s.compute.per_worker.end(),
                                        [](double f) { return f == 1.0; });
  const bool by_iterations = !s.stop.sim_time && !s.stop.bits && !s.stop.target_loss &&
                             s.metrics.every != MetricsSpec::Every::sim_time;
  const std::vector<std::string>& reducible = models::all_reducible_kinds();
  const bool all_reducible =
      std::find(reducible.begin(), reducible.end(), o.compressor.kind) != reducible.end();
  return !t.objective.has_math() && t.workers() >= 2 && all_reducible && net.model == "cm02" &&
         !o.compressor.error_feedback && net.nodes.empty() && net.links.empty() &&
         net.schedule.empty() && net.down.empty() && net.fail.empty() && !t.watched &&
         net.drop_probability == 0 && unit_factors && s.compute.jitter == 0 && by_iterations;
}

// The round's totals when the workers run in lockstep; nullopt when they would drift.
std::optional<RingAllReduce::Lockstep> lockstep_round(const Cluster& t,
                                                      const RingAllReduce::Options& o) {
  const int n = t.workers();
  const Chunks chunks{t.objective.parameters(), n};
  const NetworkConfig& config = t.network;
  const LinkParams link = config.link(0, 1);
  const double rate = std::min({link.bandwidth, config.egress(0), config.ingress(1)});
  const Bits header = config.header();
  const auto compressor = make_compressor(o.compressor, t.objective.tensor_sizes());
  // Two lengths at most (⌊M/n⌋ and ⌈M/n⌉): size each once.
  std::vector<std::pair<models::Index, Bits>> bits_of_length;
  auto chunk_bits = [&](models::Index length) {
    for (const auto& [l, b] : bits_of_length)
      if (l == length) return b;
    const Bits b = compressor->bits_for(length);
    bits_of_length.emplace_back(length, b);
    return b;
  };
  auto duration = [&](Bits bits) {
    return link.latency + transmission_time(double(bits + header), rate);
  };
  std::vector<SimTime> d(static_cast<std::size_t>(n));
  RingAllReduce::Lockstep it;
  for (int c = 0; c < n; ++c) {
    const Bits bits = chunk_bits(chunks.length(c));
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

// Compute > 0 between rounds (ComputeModel::duration with factor 1 and no jitter).
bool computes_between_rounds(const Cluster& t, const RingAllReduce::Options& o) {
  if (!o.compute_per_round) return false;
  const models::ComputeCost& cost = *o.compute_per_round;
  return SimTime::from_seconds(cost.flops / t.scenario.compute.speed + cost.seconds) > SimTime{};
}

std::optional<RingAllReduce::Lockstep> shortcut(const Cluster& t, const RingAllReduce::Options& o) {
  if (!o.compute_per_round || !symmetric_cluster(t, o)) return std::nullopt;
  std::optional<RingAllReduce::Lockstep> it = lockstep_round(t, o);
  if (!it || !computes_between_rounds(t, o)) return std::nullopt;
  return it;
}

std::optional<RingAllReduce::Lockstep> shortcut(const Training& t,
                                                const RingAllReduce::Options& o) {
  const Network& network = t.nodes.front().network();
  const bool watched = t.failures != nullptr || network.observer() != nullptr;
  return shortcut(Cluster{t.scenario, t.objective, network.config(), watched}, o);
}

}  // namespace

void set_ring_allreduce_fast_path(bool enabled) {
  fast_path_enabled = enabled;
}

RingAllReduce::RingAllReduce(Training& training, Options options)
    : t_(training), options_(std::move(options)) {
  if (fast_path_enabled) lockstep_ = shortcut(t_, options_);
  exact_ = lockstep_.has_value();
}

bool RingAllReduce::exact_for(const Training& training, const Options& options) {
  return shortcut(training, options).has_value();
}

bool RingAllReduce::exact_for(const Scenario& scenario, const models::Objective& objective,
                              const Options& options) {
  if (!fast_path_enabled || scenario.workers < 2) return false;
  const NetworkSpec& n = scenario.network;
  // The network run() builds, without the per-node and per-link overrides the shortcut
  // refuses anyway.
  NetworkConfig config(int(scenario.workers), n.latency, n.bandwidth, Sharing::fair, n.header);
  config.set_all_nics(n.nic_egress, n.nic_ingress);
  return shortcut(Cluster{scenario, objective, config, false}, options).has_value();
}

std::unique_ptr<Endpoint> RingAllReduce::join(int id, WorkerMath& math) {
  if (exact_) return std::make_unique<LockstepEnd>(t_, *lockstep_);
  return std::make_unique<RingEnd>(t_, id, math, options_.round_alone);
}

}  // namespace dlsim::sim
