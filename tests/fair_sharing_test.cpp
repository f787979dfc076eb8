// The incremental max-min solver (sim/network/fair_sharing.hpp) against the reference
// that re-solves every component at every change: random workloads (flows starting at
// random times between random port pairs, heterogeneous NICs, slow links, a scheduled
// rate change) must give bit-identical end times and rates. Independently of both, the
// rates at random instants must be max-min fair: feasible on every resource, and every
// flow has a saturated resource on which no other flow gets more (the bottleneck
// characterisation of max-min fairness, Bertsekas & Gallager §6.5.2). The same for
// network.model lv08: weighted by 1/penalty, bounded by the TCP window, rate 0.97 times
// the max-min value (SimGrid 3.32's LV08, sim/network/network_model.hpp). Last, the
// for_each_by_dense_key helper the solver uses for a synchronous round's many ends.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "sim/network/dense_key_order.hpp"
#include "sim/network/fair_sharing.hpp"

using namespace dlsim::sim;

namespace {

struct Start {
  SimTime at;
  NodeId src, dst;
  double bits;
};

class Recorder final : public TransferSink {
 public:
  explicit Recorder(Engine& e) : engine_(e) {}
  void transmitted(TransferId id) override { ends.push_back({id, engine_.now()}); }
  std::vector<std::pair<TransferId, SimTime>> ends;

 private:
  Engine& engine_;
};

// Starts the workload's transfers at their times and samples the rates at probe times.
class Driver final : public EventHandler {
 public:
  Driver(Engine& e, FairSharing& s, const std::vector<Start>& w) : engine_(e), sharing_(s), w_(w) {}
  void on_event(std::uint64_t arg) override {
    if (arg < w_.size()) {
      sharing_.add(TransferId(arg), w_[arg].src, w_[arg].dst, w_[arg].bits);
      active_.push_back(TransferId(arg));
      return;
    }
    std::erase_if(active_, [&](TransferId id) { return ended(id); });
    std::vector<double> rates;
    for (TransferId id : active_) rates.push_back(sharing_.rate(id));
    probes.push_back({engine_.now(), active_, rates});
  }
  struct Probe {
    SimTime at;
    std::vector<TransferId> ids;
    std::vector<double> rates;
  };
  std::vector<Probe> probes;
  const Recorder* recorder = nullptr;

 private:
  bool ended(TransferId id) const {
    return std::any_of(recorder->ends.begin(), recorder->ends.end(),
                       [&](const auto& e) { return e.first == id; });
  }
  Engine& engine_;
  FairSharing& sharing_;
  const std::vector<Start>& w_;
  std::vector<TransferId> active_;
};

struct Outcome {
  std::vector<std::pair<TransferId, SimTime>> ends;
  std::vector<Driver::Probe> probes;
  std::uint64_t flows_solved;
};

NetworkConfig random_config(std::mt19937_64& rng, int n) {
  NetworkConfig c(n, SimTime::from_seconds(1e-6), 10e9, Sharing::fair, 0);
  std::uniform_int_distribution<int> node(0, n - 1);
  const double speeds[] = {1e9, 2.5e9, 4e9, 10e9};
  for (int k = 0; k < n / 2; ++k) c.set_egress(node(rng), speeds[rng() % 4]);
  for (int k = 0; k < n / 2; ++k) c.set_ingress(node(rng), speeds[rng() % 4]);
  for (int k = 0; k < n; ++k) {
    const int a = node(rng), b = node(rng);
    if (a != b) c.set_link(a, b, std::nullopt, speeds[rng() % 3]);
  }
  return c;
}

std::vector<Start> random_workload(std::mt19937_64& rng, int n, int flows) {
  std::uniform_int_distribution<int> node(0, n - 1);
  std::vector<Start> w;
  std::int64_t t = 0;
  for (int k = 0; k < flows; ++k) {
    // Bursts at one instant (as synchronous rounds produce) and random gaps.
    if (rng() % 3 == 0) t += 2 * std::int64_t(rng() % 1'000'000);  // even; probes are odd
    int a = node(rng), b = node(rng);
    if (a == b) b = (a + 1) % n;
    const double bits = rng() % 4 == 0 ? 8000.0 : double(1000 + rng() % 1'000'000);
    w.push_back({SimTime::from_ps(t), a, b, bits});
  }
  return w;
}

Outcome run(FairSharing::Recompute mode, NetworkConfig config, const std::vector<Start>& w,
            const std::vector<SimTime>& probe_times, std::optional<SimTime> rate_change) {
  Engine engine;
  Recorder recorder(engine);
  FairSharing sharing(engine, config, recorder, mode);
  Driver driver(engine, sharing, w);
  driver.recorder = &recorder;
  for (std::size_t k = 0; k < w.size(); ++k) engine.schedule(w[k].at, &driver, k);
  for (SimTime p : probe_times) engine.schedule(p, &driver, w.size());
  struct Change final : EventHandler {
    NetworkConfig* config;
    FairSharing* sharing;
    void on_event(std::uint64_t) override {
      config->set_egress(0, 0.5e9);
      config->set_ingress(1, 20e9);
      sharing->rates_changed();
    }
  } change;
  change.config = &config;
  change.sharing = &sharing;
  if (rate_change) engine.schedule(*rate_change, &change, 0);
  engine.run();
  return {recorder.ends, driver.probes, sharing.flows_solved()};
}

// The resources the probed flows cross (egress, ingress, link), with their users (probe
// indices) and capacities.
struct ProbeResources {
  std::map<std::int64_t, std::vector<std::size_t>> users;
  std::map<std::int64_t, double> capacity;
};
ProbeResources resources_of(const NetworkConfig& c, const std::vector<Start>& w,
                            const Driver::Probe& p) {
  const int n = c.nodes();
  ProbeResources res;
  for (std::size_t k = 0; k < p.ids.size(); ++k) {
    const Start& s = w[p.ids[k]];
    res.users[s.src].push_back(k);
    res.capacity[s.src] = c.egress(s.src);
    res.users[n + s.dst].push_back(k);
    res.capacity[n + s.dst] = c.ingress(s.dst);
    const std::int64_t link = 2 * n + std::int64_t(s.src) * n + s.dst;
    res.users[link].push_back(k);
    res.capacity[link] = c.link(s.src, s.dst).bandwidth;
  }
  return res;
}

// Max-min fairness of one probe, from the definition (independent of the solver).
void check_max_min(const NetworkConfig& c, const std::vector<Start>& w, const Driver::Probe& p) {
  auto [users, capacity] = resources_of(c, w, p);
  std::map<std::int64_t, double> load;
  for (const auto& [r, ks] : users) {
    for (std::size_t k : ks) load[r] += p.rates[k];
    CHECK(load[r] <= capacity[r] * (1 + 1e-9));
  }
  for (std::size_t k = 0; k < p.ids.size(); ++k) {
    REQUIRE(p.rates[k] > 0);
    bool has_bottleneck = false;
    for (const auto& [r, ks] : users) {
      if (std::find(ks.begin(), ks.end(), k) == ks.end()) continue;
      if (load[r] < capacity[r] * (1 - 1e-9)) continue;
      double most = 0;
      for (std::size_t j : ks) most = std::max(most, p.rates[j]);
      has_bottleneck |= p.rates[k] >= most * (1 - 1e-9);
    }
    CHECK(has_bottleneck);
  }
}

// lv08's penalty and bound of a flow, written out from SimGrid's formula (bytes, seconds):
// penalty = α + 20537 · (1/E + 1/β + 1/I), bound = 4194304 / (2α); α = 0: penalty 1.
double lv08_penalty(const NetworkConfig& c, NodeId s, NodeId d) {
  const LinkParams l = c.link(s, d);
  if (l.latency.ps == 0) return 1.0;
  return l.latency.seconds() + 20537.0 * (8 / c.egress(s) + 8 / l.bandwidth + 8 / c.ingress(d));
}
double lv08_bound(const NetworkConfig& c, NodeId s, NodeId d) {
  const SimTime a = c.link(s, d).latency;
  return a.ps == 0 ? 0.0 : 8 * 4194304.0 / (2 * a.seconds());
}

// Weighted max-min with bounds, from the definition: with values v = rate / 0.97, every
// resource is feasible, and every flow is at its bound or has a saturated resource on
// which no flow has a higher level v · penalty.
void check_weighted_max_min(const NetworkConfig& c, const std::vector<Start>& w,
                            const Driver::Probe& p) {
  auto [users, capacity] = resources_of(c, w, p);
  std::vector<double> value, level;
  for (std::size_t k = 0; k < p.ids.size(); ++k) {
    const Start& s = w[p.ids[k]];
    value.push_back(p.rates[k] / 0.97);
    level.push_back(value.back() * lv08_penalty(c, s.src, s.dst));
  }
  std::map<std::int64_t, double> load;
  for (const auto& [r, ks] : users) {
    for (std::size_t k : ks) load[r] += value[k];
    CHECK(load[r] <= capacity[r] * (1 + 1e-9));
  }
  for (std::size_t k = 0; k < p.ids.size(); ++k) {
    REQUIRE(value[k] > 0);
    const Start& s = w[p.ids[k]];
    const double bound = lv08_bound(c, s.src, s.dst);
    CHECK((bound == 0 || value[k] <= bound * (1 + 1e-9)));
    bool limited = bound > 0 && value[k] >= bound * (1 - 1e-9);
    for (const auto& [r, ks] : users) {
      if (std::find(ks.begin(), ks.end(), k) == ks.end()) continue;
      if (load[r] < capacity[r] * (1 - 1e-9)) continue;
      double most = 0;
      for (std::size_t j : ks) most = std::max(most, level[j]);
      limited |= level[k] >= most * (1 - 1e-9);
    }
    CHECK(limited);
  }
}

// Both solvers on `workload` with 25 random probes and, for odd seeds, new NIC rates half
// way: the same ends and the same probed rates, bit for bit. `check(config, probe)` then
// runs on every probe that saw flows, with the configuration in force at its time.
template <class Check>
std::pair<Outcome, Outcome> compare_solvers(std::uint64_t seed, std::mt19937_64& rng,
                                            const NetworkConfig& config,
                                            const std::vector<Start>& workload, Check check) {
  std::vector<SimTime> probes;
  const std::int64_t horizon = workload.back().at.ps + 1;
  for (int k = 0; k < 25; ++k)
    probes.push_back(SimTime::from_ps(std::int64_t(rng() % horizon) | 1));
  const std::optional<SimTime> change =
      seed % 2 ? std::optional(SimTime::from_ps(horizon / 4 * 2)) : std::nullopt;
  Outcome inc = run(FairSharing::Recompute::incremental, config, workload, probes, change);
  Outcome full = run(FairSharing::Recompute::full, config, workload, probes, change);
  REQUIRE(inc.ends.size() == workload.size());
  REQUIRE(inc.ends == full.ends);  // same transfers end at the same picosecond, same order
  // Ends of one instant are reported in start order; here transfer k starts k-th.
  for (std::size_t k = 1; k < inc.ends.size(); ++k)
    if (inc.ends[k].second == inc.ends[k - 1].second)
      CHECK(inc.ends[k - 1].first < inc.ends[k].first);
  REQUIRE(inc.probes.size() == full.probes.size());
  for (std::size_t k = 0; k < inc.probes.size(); ++k) {
    CHECK(inc.probes[k].ids == full.probes[k].ids);
    CHECK(inc.probes[k].rates == full.probes[k].rates);  // exact
  }
  NetworkConfig after = config;
  for (const auto& p : inc.probes) {
    if (change && p.at > *change) {
      after.set_egress(0, 0.5e9);
      after.set_ingress(1, 20e9);
    }
    if (!p.ids.empty()) check(change && p.at > *change ? after : config, p);
  }
  return {std::move(inc), std::move(full)};
}

}  // namespace

TEST_CASE(
    "lv08: incremental solver equals full recomputation bit for bit, and is weighted "
    "max-min fair with window bounds",
    "[fair_sharing]") {
  for (std::uint64_t seed = 101; seed <= 108; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = 4 + int(rng() % 29);
    NetworkConfig config = random_config(rng, n);
    config.set_model(NetworkModel::lv08);
    // Latencies from 0 to 100 ms: long links bind their flows at 8γ / (2α).
    const double latencies[] = {0, 1e-6, 1e-3, 20e-3, 100e-3};
    std::uniform_int_distribution<int> node(0, n - 1);
    for (int k = 0; k < 2 * n; ++k) {
      const int a = node(rng), b = node(rng);
      if (a != b) config.set_link(a, b, SimTime::from_seconds(latencies[rng() % 5]), std::nullopt);
    }
    const auto workload = random_workload(rng, n, 300);
    CAPTURE(seed, n);
    compare_solvers(seed, rng, config, workload, [&](const NetworkConfig& c, const auto& p) {
      check_weighted_max_min(c, workload, p);
    });
  }
}

TEST_CASE("incremental max-min solver equals full recomputation bit for bit", "[fair_sharing]") {
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = 4 + int(rng() % 29);
    const NetworkConfig config = random_config(rng, n);
    const auto workload = random_workload(rng, n, 300);
    CAPTURE(seed, n);
    const auto [inc, full] = compare_solvers(
        seed, rng, config, workload,
        [&](const NetworkConfig& c, const auto& p) { check_max_min(c, workload, p); });
    CHECK(inc.flows_solved <= full.flows_solved);
    if (n >= 16) CHECK(inc.flows_solved < full.flows_solved);  // several components: less work
  }
}

TEST_CASE("disjoint flow groups are solved separately", "[fair_sharing]") {
  // 100 pairs (2k -> 2k+1) never share a port: after the burst, each later start
  // re-solves only its own component of one flow.
  Engine engine;
  NetworkConfig config(200, SimTime{}, 10e9, Sharing::fair, 0);
  Recorder recorder(engine);
  FairSharing sharing(engine, config, recorder);
  std::vector<Start> w;
  for (int k = 0; k < 100; ++k) w.push_back({SimTime::from_ps(k), 2 * k, 2 * k + 1, 1e6});
  Driver driver(engine, sharing, w);
  driver.recorder = &recorder;
  for (std::size_t k = 0; k < w.size(); ++k) engine.schedule(w[k].at, &driver, k);
  engine.run();
  REQUIRE(recorder.ends.size() == 100);
  CHECK(sharing.flows_solved() == 100);
  for (const auto& [id, at] : recorder.ends) CHECK(at == w[id].at + transmission_time(1e6, 10e9));
}

TEST_CASE(
    "rounds that saturate hundreds of resources at once (taken in one linear pass) equal full "
    "recomputation bit for bit",
    "[fair_sharing]") {
  // Gossip on a ring of 400: every node sends to both neighbours at one instant, so the
  // first round of progressive filling saturates all 800 ports at once (or, with a few
  // slower NICs, those first and the hundreds of others next); a second burst joins
  // while the first is in flight, and flow sizes differ so ends are staggered.
  for (std::uint64_t seed = 201; seed <= 206; ++seed) {
    std::mt19937_64 rng(seed);
    const int n = 400;
    NetworkConfig config(n, SimTime::from_seconds(1e-6), 10e9, Sharing::fair, 0);
    const int slow = int(seed % 3) * 5;  // 0, 5 or 10 slower egress ports
    for (int k = 0; k < slow; ++k) config.set_egress(int(rng() % n), 2.5e9);
    const bool lv08 = seed >= 204;
    if (lv08) config.set_model(NetworkModel::lv08);
    std::vector<Start> w;
    for (std::int64_t burst : {0, 2'000'000}) {
      for (int i = 0; i < n; ++i) {
        const double bits = burst == 0 ? 1e6 : double(500'000 + rng() % 1'000'000);
        w.push_back({SimTime::from_ps(burst), i, (i + 1) % n, bits});
        w.push_back({SimTime::from_ps(burst), i, (i + n - 1) % n, bits});
      }
    }
    CAPTURE(seed, slow, lv08);
    compare_solvers(seed, rng, config, w, [&](const NetworkConfig& c, const auto& p) {
      if (lv08)
        check_weighted_max_min(c, w, p);
      else
        check_max_min(c, w, p);
    });
  }
}

TEST_CASE("for_each_by_dense_key visits by unique keys as std::sort orders them, or declines",
          "[fair_sharing]") {
  std::mt19937_64 rng(7);
  std::vector<std::uint32_t> slots;
  using Item = std::pair<std::uint64_t, std::uint32_t>;  // (key, value)
  auto key_of = [](const Item& item) { return item.first; };
  auto value_of = [](const Item& item) { return item.second; };
  for (std::size_t n : {0u, 1u, 2u, 3u, 17u, 1000u, 65536u}) {
    // Unique keys from a span of 2n values starting far from 0, shuffled, each with a
    // value of its own: the visit must pair every key with its own value, in key order.
    std::vector<std::uint64_t> keys(2 * n);
    std::iota(keys.begin(), keys.end(), std::uint64_t(1) << 40);
    std::shuffle(keys.begin(), keys.end(), rng);
    keys.resize(n);
    std::vector<Item> items;
    for (std::uint64_t k : keys) items.emplace_back(k, std::uint32_t(rng()) >> 1);
    auto expected = items;
    std::sort(expected.begin(), expected.end());
    std::vector<Item> visited;
    CAPTURE(n);
    REQUIRE(for_each_by_dense_key(
        items, key_of, value_of, slots,
        [&](std::uint64_t key, std::uint32_t value) { visited.emplace_back(key, value); }));
    CHECK(visited == expected);
  }
  auto never = [](std::uint64_t, std::uint32_t) { FAIL("visited"); };
  // Keys spread over more than 4 times their count: declined, nothing visited.
  const std::vector<Item> sparse = {{40, 1}, {0, 2}, {20, 3}};
  CHECK_FALSE(for_each_by_dense_key(sparse, key_of, value_of, slots, never));
  // Two items with one key: an error, not a lost item.
  const std::vector<Item> twice = {{5, 1}, {6, 2}, {5, 3}};
  CHECK_THROWS_AS(for_each_by_dense_key(twice, key_of, value_of, slots, never), std::logic_error);
}

TEST_CASE("a default link slower than the NICs binds every flow, also once the NICs change",
          "[fair_sharing]") {
  // No link has values of its own, so the solver decides once whether links can bind
  // (fair_sharing.cpp, find_whether_links_bind): they can when the default link is slower
  // than both the fastest egress and the fastest ingress, and it decides again at a rate
  // change. Two flows on disjoint pairs and one pair of flows sharing egress 0.
  auto ends = [](NetworkConfig config, BitsPerSecond later_nics) {
    Engine engine;
    Recorder recorder(engine);
    FairSharing sharing(engine, config, recorder);
    struct Start final : EventHandler {
      FairSharing* sharing;
      NetworkConfig* config;
      BitsPerSecond nics;
      void on_event(std::uint64_t arg) override {
        if (arg == 1) {  // the NICs change before any flow starts
          config->set_all_nics(nics, nics);
          sharing->rates_changed();
          return;
        }
        sharing->add(0, 0, 1, 1e6);
        sharing->add(1, 0, 2, 1e6);
        sharing->add(2, 3, 4, 1e6);
      }
    } start;
    start.sharing = &sharing;
    start.config = &config;
    start.nics = later_nics;
    if (later_nics > 0) engine.schedule(SimTime::from_ps(1), &start, 1);
    engine.schedule(SimTime::from_ps(2), &start, 0);
    engine.run();
    std::map<TransferId, SimTime> by_id;
    for (const auto& [id, at] : recorder.ends) by_id[id] = at;
    return by_id;
  };
  const SimTime t0 = SimTime::from_ps(2);
  SECTION("the NICs are faster than the default link from the start") {
    NetworkConfig config(5, SimTime{}, 1e9, Sharing::fair, 0);
    config.set_all_nics(10e9, 10e9);
    const auto at = ends(config, 0);
    // Links 0->1 and 0->2 are 1 Gbps each; egress 0 (10 Gbps) does not bind.
    CHECK(at.at(0) == t0 + transmission_time(1e6, 1e9));
    CHECK(at.at(1) == t0 + transmission_time(1e6, 1e9));
    CHECK(at.at(2) == t0 + transmission_time(1e6, 1e9));
  }
  SECTION("the NICs become faster than the default link") {
    NetworkConfig config(5, SimTime{}, 1e9, Sharing::fair, 0);
    const auto at = ends(config, 10e9);
    CHECK(at.at(0) == t0 + transmission_time(1e6, 1e9));
    CHECK(at.at(1) == t0 + transmission_time(1e6, 1e9));
    CHECK(at.at(2) == t0 + transmission_time(1e6, 1e9));
  }
  SECTION("NICs no faster than the default link: the shared egress binds") {
    NetworkConfig config(5, SimTime{}, 10e9, Sharing::fair, 0);
    config.set_all_nics(1e9, 1e9);
    const auto at = ends(config, 0);
    CHECK(at.at(0) == t0 + transmission_time(1e6, 0.5e9));
    CHECK(at.at(1) == t0 + transmission_time(1e6, 0.5e9));
    CHECK(at.at(2) == t0 + transmission_time(1e6, 1e9));
  }
}
