// The centralized collectives driven directly (sim/collectives/), without an algorithm:
// n workers contribute known vectors and every worker must get exactly the mean, in the
// simulated time of the closed forms (uniform α-β network, S = bits + H per message):
//   parameter server, a lone round:  2(α + nS/β)   (n uplinks share the server's ingress,
//                                                   then n downlinks its egress)
//   allgather:                       α + (n−1)S/β  (n−1 copies through each egress)
//   ring all-reduce:                 2(n−1)(α + (32M/n + H)/β)   (M divisible by n)
// Values are exact in fp32 (small multiples of 1/8) unless a test is about the rounding,
// whose closed forms are written out: the server rounds its double mean once (fp32
// downlink), allgather sums the n fp32-rounded vectors, the ring rounds every partial sum
// of a chunk hop by hop in ring order. The ring's exact shortcut (exact_for) must hold
// exactly where its conditions do, and give the simulated ring's times and totals.
#include <catch2/catch.hpp>

#include "models/compress/factory.hpp"

#include <memory>
#include <vector>

#include "sim/algorithms/algorithms.hpp"
#include "sim/collectives/allgather.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/collectives/ring_allreduce.hpp"
#include "sim/metrics/evaluator.hpp"
#include "sim/metrics/recorder.hpp"
#include "sim/run/runner.hpp"
#include "sim/runtime/compute_model.hpp"
#include "sim/scenario/load.hpp"

using nlohmann::json;
namespace sim = dlsim::sim;
using dlsim::models::Vector;

namespace {

constexpr double kAlpha = 20e-6;   // 20us
constexpr double kBeta = 1e9;      // 1Gbps
constexpr double kHeader = 512;    // 64B
constexpr double kCompute = 3e-3;  // profile compute_time per batch

// A least-squares model of dimension d (no bias) on n workers, or a profile model of d
// parameters: the objective only sets the vectors' length (and whether there is math).
json cluster(int n, int d, const std::string& collective, bool profile = false) {
  json s = {{"workers", n},
            {"seed", 3},
            {"algorithm", {{"kind", "sgd"}, {"collective", collective}}},
            {"network", {{"latency", "20us"}, {"bandwidth", "1Gbps"}, {"header", "64B"}}},
            {"stop", {{"iterations", 3}}}};
  if (profile) {
    s["model"] = {{"kind", "profile"}, {"parameters", d}, {"compute_time", "3ms"}};
  } else {
    s["data"] = {{"source", "synthetic-regression"},
                 {"samples", 40 * n},
                 {"features", d},
                 {"noise", 0.0},
                 {"condition", 2}};
    s["model"] = {{"kind", "least-squares"}, {"bias", false}};
  }
  return s;
}

// A run's pieces as sim::run builds them (run.cpp), with no metrics output.
struct Bench {
  sim::PreparedRun p;
  sim::Engine engine;
  std::unique_ptr<sim::Network> network;
  std::unique_ptr<sim::ComputeModel> compute;
  std::unique_ptr<sim::Evaluator> evaluator;
  std::unique_ptr<sim::Recorder> recorder;
  sim::WallAccount wall;
  std::unique_ptr<sim::Training> t;

  explicit Bench(const json& doc) : p(sim::prepare(sim::load_scenario(doc))) {
    const sim::Scenario& s = p.scenario;
    network = std::make_unique<sim::Network>(
        engine,
        sim::NetworkConfig(sim::node_count(s), s.network.latency, s.network.bandwidth,
                           s.network.sharing == "fifo" ? sim::Sharing::fifo : sim::Sharing::fair,
                           s.network.header));
    compute = std::make_unique<sim::ComputeModel>(s.compute.speed, s.compute.per_worker,
                                                  s.compute.jitter, s.seed, sim::node_count(s));
    const dlsim::models::Dataset* train = p.data ? &p.data->train : nullptr;
    evaluator = std::make_unique<sim::Evaluator>(*p.objective, train, nullptr, false);
    sim::RecorderPlan plan{
        1, p.max_iterations, p.samples_per_iteration, p.train_samples, s.metrics, s.stop};
    recorder = std::make_unique<sim::Recorder>(engine, *network, *evaluator, plan,
                                               std::vector<sim::MetricsObserver*>{},
                                               std::chrono::steady_clock::now());
    auto init_rng = sim::make_rng(s.seed, "init");
    t = std::unique_ptr<sim::Training>(new sim::Training{s,
                                                         *p.objective,
                                                         train,
                                                         p.shards,
                                                         p.objective->initial_point(init_rng),
                                                         {},
                                                         *recorder,
                                                         wall});
    for (int i = 0; i < sim::node_count(s); ++i)
      t->nodes.emplace_back(i, engine, *network, *compute);
  }
  int n() const { return t->workers(); }
  const sim::NetworkCounters& counters() const { return network->counters(); }
};

// What one worker saw: the mean of every round and when each round ended.
struct Seen {
  std::vector<Vector> means;
  std::vector<double> done_s;
};

// Worker `id`: per round, compute for `compute_s` (0: none), then contribute
// contributions[round] in `formats[round]`, and record the mean and the time.
sim::Task<void> worker(Bench& b, std::shared_ptr<sim::Collective> c, int id,
                       std::vector<Vector> contributions, std::vector<sim::RoundFormat> formats,
                       double compute_s, Seen& seen) {
  sim::Node& me = b.t->nodes[std::size_t(id)];
  sim::WorkerMath math(*b.t, id);
  const auto ep = c->join(id, math);
  for (std::size_t r = 0; r < contributions.size(); ++r) {
    if (compute_s > 0) co_await me.compute(dlsim::models::ComputeCost{0, compute_s});
    Vector out;
    co_await ep->mean(contributions[r], formats[r], out);
    seen.means.push_back(out);
    seen.done_s.push_back(me.now().seconds());
  }
}

// Runs `rounds` rounds in which worker i contributes value(i, r): what each worker saw.
template <class Value>
std::vector<Seen> run_rounds(Bench& b, const std::shared_ptr<sim::Collective>& c, int rounds,
                             Value value, std::vector<sim::RoundFormat> formats = {},
                             double compute_s = 0) {
  formats.resize(std::size_t(rounds));
  std::vector<Seen> seen(std::size_t(b.n()));
  for (int i = 0; i < c->workers_to_simulate(); ++i) {
    std::vector<Vector> mine;
    for (int r = 0; r < rounds; ++r) mine.push_back(value(i, r));
    b.engine.spawn(worker(b, c, i, mine, formats, compute_s, seen[std::size_t(i)]));
  }
  c->launch(b.engine);
  b.engine.run();
  return seen;
}

Vector exact_values(int i, int r, int d) {  // multiples of 1/8, exact in fp32 and fp16
  Vector v(d);
  for (int j = 0; j < d; ++j) v[j] = (i + 1) * (r + 1) + 0.125 * j - 2;
  return v;
}

Vector inexact_values(int i, int d) {  // not representable in fp32
  Vector v(d);
  for (int j = 0; j < d; ++j) v[j] = 0.1 * (i + 1) + 0.01 * j + 1e-9 * i;
  return v;
}

double f32(double x) {
  return double(float(x));
}

Vector mean_of(int n, int r, int d) {
  Vector sum = Vector::Zero(d);
  for (int i = 0; i < n; ++i) sum += exact_values(i, r, d);
  return sum / double(n);
}

bool equal(const Vector& a, const Vector& b) {
  return a.size() == b.size() && (a.array() == b.array()).all();
}

double message_s(double bits) {
  return (bits + kHeader) / kBeta;
}

}  // namespace

TEST_CASE("parameter server: every worker gets the mean; a round takes 2(alpha + nS/beta)",
          "[collectives_mean]") {
  const int n = 4, d = 64;
  Bench b(cluster(n, d, "parameter-server"));
  auto ps = std::make_shared<sim::ParameterServer>(*b.t, sim::ParameterServer::Options{});
  const auto seen = run_rounds(b, ps, 3, [&](int i, int r) { return exact_values(i, r, d); });
  const double round_s = 2 * (kAlpha + n * message_s(32.0 * d));
  for (int i = 0; i < n; ++i) {
    INFO("worker " << i);
    REQUIRE(seen[i].means.size() == 3);
    for (int r = 0; r < 3; ++r) {
      CHECK(equal(seen[i].means[r], mean_of(n, r, d)));
      CHECK(seen[i].done_s[r] == Approx((r + 1) * round_s).epsilon(1e-9));
    }
  }
  CHECK(b.counters().messages == 3u * 2 * n);
  CHECK(b.counters().bits_total == 3u * 2 * n * 32 * d);
}

TEST_CASE("parameter server: the fp32 downlink rounds the server's mean once",
          "[collectives_mean]") {
  const int n = 3, d = 10;
  Bench b(cluster(n, d, "parameter-server"));
  auto ps = std::make_shared<sim::ParameterServer>(*b.t, sim::ParameterServer::Options{});
  const auto seen = run_rounds(b, ps, 1, [&](int i, int) { return inexact_values(i, d); });
  Vector expected(d);
  for (int j = 0; j < d; ++j) {
    double sum = 0;  // the uplinks are fp32 (compressor none), summed in worker order
    for (int i = 0; i < n; ++i) sum += f32(inexact_values(i, d)[j]);
    expected[j] = f32(sum / n);
  }
  for (int i = 0; i < n; ++i) CHECK(equal(seen[i].means[0], expected));
}

TEST_CASE("parameter server: a reply and a downlink compressor replace the mean and its format",
          "[collectives_mean]") {
  const int n = 4, d = 16;
  Bench b(cluster(n, d, "parameter-server"));
  sim::ParameterServer::Options options;
  options.downlink = dlsim::models::parse_compressor(json{{"kind", "fp16"}});
  Vector model = Vector::Zero(d);  // as SGD's server: x ← x − mean, sent instead of the mean
  std::vector<std::uint64_t> rounds;
  options.reply = [&](std::uint64_t round, Vector& mean) -> const Vector& {
    rounds.push_back(round);
    model -= mean;
    return model;
  };
  auto ps = std::make_shared<sim::ParameterServer>(*b.t, std::move(options));
  const auto seen = run_rounds(b, ps, 2, [&](int i, int r) { return exact_values(i, r, d); });
  const Vector x1 = -mean_of(n, 0, d), x2 = x1 - mean_of(n, 1, d);  // exact in fp16
  for (int i = 0; i < n; ++i) {
    CHECK(equal(seen[i].means[0], x1));
    CHECK(equal(seen[i].means[1], x2));
  }
  CHECK(rounds == std::vector<std::uint64_t>{0, 1});
  // uplinks in fp32 (32 bits per coordinate), downlinks in fp16 (16): the latter's
  // phase is shorter by n·16d/β
  CHECK(b.counters().bits_total == 2u * n * (32 + 16) * d);
  const double round_s = 2 * kAlpha + n * (message_s(32.0 * d) + message_s(16.0 * d));
  CHECK(seen[0].done_s[1] == Approx(2 * round_s).epsilon(1e-9));
}

TEST_CASE("parameter server: each round is decoded in the format its senders declared",
          "[collectives_mean]") {
  const int n = 3, d = 40;
  json s = cluster(n, d, "parameter-server");
  s["algorithm"]["compressor"] = {{"kind", "sign"}};  // 32 + d bits, decodes to ±‖v‖₁/d
  Bench b(s);
  auto ps = std::make_shared<sim::ParameterServer>(*b.t, sim::ParameterServer::Options{});
  // round 0 exact in fp32, round 1 with the compressor (stream 0), round 2 fp32 again
  const std::vector<sim::RoundFormat> formats = {{true, 0}, {false, 0}, {true, 0}};
  const auto seen = run_rounds(
      b, ps, 3, [&](int i, int r) { return exact_values(i, r, d); }, formats);
  for (int i = 0; i < n; ++i) {
    CHECK(equal(seen[i].means[0], mean_of(n, 0, d)));
    CHECK(!equal(seen[i].means[1], mean_of(n, 1, d)));  // sign-compressed
    CHECK(equal(seen[i].means[1], seen[0].means[1]));
    CHECK(equal(seen[i].means[2], mean_of(n, 2, d)));
  }
  // uplinks: 32d, 32 + d, 32d bits; downlinks always fp32
  CHECK(b.counters().bits_total == std::uint64_t(n) * (32 * d + (32 + d) + 32 * d + 3 * 32 * d));
}

TEST_CASE("allgather: every worker gets the mean; a round takes alpha + (n-1)S/beta",
          "[collectives_mean]") {
  for (const int n : {2, 5}) {
    const int d = 24;
    Bench b(cluster(n, d, "allgather"));
    auto all = std::make_shared<sim::Allgather>(*b.t);
    const auto seen = run_rounds(b, all, 2, [&](int i, int r) { return exact_values(i, r, d); });
    for (int i = 0; i < n; ++i) {
      INFO(n << " workers, worker " << i);
      for (int r = 0; r < 2; ++r) {
        CHECK(equal(seen[i].means[r], mean_of(n, r, d)));
        CHECK(seen[i].done_s[r] ==
              Approx((r + 1) * (kAlpha + (n - 1) * message_s(32.0 * d))).epsilon(1e-9));
      }
    }
    CHECK(b.counters().messages == 2u * n * (n - 1));
  }
}

TEST_CASE("allgather: the mean of the n fp32-rounded contributions", "[collectives_mean]") {
  const int n = 3, d = 9;
  Bench b(cluster(n, d, "allgather"));
  auto all = std::make_shared<sim::Allgather>(*b.t);
  const auto seen = run_rounds(b, all, 1, [&](int i, int) { return inexact_values(i, d); });
  Vector expected(d);
  for (int j = 0; j < d; ++j) {
    double sum = 0;
    for (int i = 0; i < n; ++i) sum += f32(inexact_values(i, d)[j]);
    expected[j] = sum / n;
  }
  for (int i = 0; i < n; ++i) CHECK(equal(seen[i].means[0], expected));
}

TEST_CASE("ring all-reduce: every worker gets the mean in 2(n-1)(alpha + (32M/n + H)/beta)",
          "[collectives_mean]") {
  for (const int n : {2, 4, 8}) {
    const int d = 64;  // divisible by n
    Bench b(cluster(n, d, "ring-allreduce"));
    auto ring = std::make_shared<sim::RingAllReduce>(*b.t, sim::RingAllReduce::Options{});
    CHECK(!ring->exact());  // a model with math: every transfer simulated
    const auto seen = run_rounds(b, ring, 2, [&](int i, int r) { return exact_values(i, r, d); });
    const double round_s = 2 * (n - 1) * (kAlpha + message_s(32.0 * d / n));
    for (int i = 0; i < n; ++i) {
      INFO(n << " workers, worker " << i);
      for (int r = 0; r < 2; ++r) {
        CHECK(equal(seen[i].means[r], mean_of(n, r, d)));
        CHECK(seen[i].done_s[r] == Approx((r + 1) * round_s).epsilon(1e-9));
      }
    }
    CHECK(b.counters().messages == 2u * 2 * (n - 1) * n);
    CHECK(b.counters().bits_total == 2u * 2 * (n - 1) * 32 * d);
  }
}

TEST_CASE("ring all-reduce: partial sums are rounded to fp32 hop by hop, in ring order",
          "[collectives_mean]") {
  const int n = 3, d = 11;  // chunks of 3, 4, 4 coordinates
  Bench b(cluster(n, d, "ring-allreduce"));
  auto ring = std::make_shared<sim::RingAllReduce>(*b.t, sim::RingAllReduce::Options{});
  const auto seen = run_rounds(b, ring, 1, [&](int i, int) { return inexact_values(i, d); });
  // Chunk c starts at worker c, which sends f32(v_c); worker c+1 adds its own v_{c+1} and
  // sends f32 of that, ...; the owner, worker c−1, keeps f32 of the whole sum.
  Vector expected(d);
  for (int c = 0; c < n; ++c) {
    for (int j = d * c / n; j < d * (c + 1) / n; ++j) {
      double partial = inexact_values(c, d)[j];
      for (int hop = 1; hop < n; ++hop)
        partial = f32(partial) + inexact_values((c + hop) % n, d)[j];
      expected[j] = f32(partial) / n;
    }
  }
  for (int i = 0; i < n; ++i) CHECK(equal(seen[i].means[0], expected));
}

TEST_CASE("ring all-reduce with one worker: round_alone rounds the contribution or not",
          "[collectives_mean]") {
  const int d = 5;
  for (const bool round_alone : {true, false}) {
    Bench b(cluster(1, d, "ring-allreduce"));
    sim::RingAllReduce::Options options;
    options.round_alone = round_alone;
    auto ring = std::make_shared<sim::RingAllReduce>(*b.t, options);
    const auto seen = run_rounds(b, ring, 1, [&](int, int) { return inexact_values(0, d); });
    Vector expected = inexact_values(0, d);
    if (round_alone) expected = expected.unaryExpr([](double x) { return f32(x); });
    CHECK(equal(seen[0].means[0], expected));
    CHECK(b.counters().messages == 0u);
  }
}

TEST_CASE("ring all-reduce: exact_for holds exactly where the lockstep shortcut is exact",
          "[collectives_mean]") {
  const dlsim::models::ComputeCost batch{0, kCompute};
  auto options = [&](const std::string& compressor = "none", bool ef = false) {
    sim::RingAllReduce::Options o;
    o.compressor =
        dlsim::models::parse_compressor(json{{"kind", compressor}, {"error_feedback", ef}});
    o.compute_per_round = batch;
    return o;
  };
  auto exact = [](const json& doc, const sim::RingAllReduce::Options& o) {
    Bench b(doc);
    return sim::RingAllReduce::exact_for(*b.t, o);
  };
  const json uniform = cluster(8, 8000, "ring-allreduce", true);
  CHECK(exact(uniform, options()));
  CHECK(exact(uniform, options("fp16")));
  CHECK(exact(cluster(7, 1'000'003, "ring-allreduce", true), options()));  // short chunks isolated
  CHECK(!exact(cluster(3, 64, "ring-allreduce", true), options()));  // 21, 21, 22: workers drift
  CHECK(!exact(cluster(16, 1'000'003, "ring-allreduce", true), options()));  // two short ones meet
  CHECK(!exact(uniform, options("none", true)));                             // error feedback
  CHECK(!exact(uniform, options("qsgd")));                                   // not all-reducible
  CHECK(!exact(cluster(8, 64, "ring-allreduce"), options()));                // a model with math
  CHECK(!exact(cluster(1, 8000, "ring-allreduce", true), options()));
  sim::RingAllReduce::Options no_compute = options();
  no_compute.compute_per_round.reset();  // the caller promises nothing (the SVRG family)
  CHECK(!exact(uniform, no_compute));
  no_compute.compute_per_round = dlsim::models::ComputeCost{};  // no time between rounds
  CHECK(!exact(uniform, no_compute));
  json link = uniform, straggler = uniform, jitter = uniform, sim_time = uniform,
       every_time = uniform;
  link["network"]["links"] = json::array({{{"from", 2}, {"to", 3}, {"latency", "70us"}}});
  straggler["compute"]["per_worker"] = json::array({1, 1, 1, 3, 1, 1, 1, 1});
  jitter["compute"]["jitter"] = 0.1;
  sim_time["stop"] = {{"sim_time", "5ms"}};
  every_time["metrics"] = {{"every", {{"sim_time", "1ms"}}}};
  for (const json& s : {link, straggler, jitter, sim_time, every_time}) {
    INFO(s.dump());
    CHECK(!exact(s, options()));
  }
}

TEST_CASE("ring all-reduce: the shortcut gives the simulated ring's times, totals and means",
          "[collectives_mean]") {
  struct Case {
    int n;
    int d;
    const char* compressor;
  };
  for (const Case& c : {Case{8, 8000, "none"}, Case{5, 1000, "fp16"}, Case{7, 1'000'003, "none"}}) {
    CAPTURE(c.n, c.d, c.compressor);
    json doc = cluster(c.n, c.d, "ring-allreduce", true);
    doc["algorithm"]["compressor"] = {{"kind", c.compressor}};
    sim::RingAllReduce::Options o;
    o.compressor = dlsim::models::parse_compressor(json{{"kind", c.compressor}});
    o.compute_per_round = dlsim::models::ComputeCost{0, kCompute};
    auto no_math = [](int, int) { return Vector(); };
    const int rounds = 3;

    Bench fast(doc);
    auto shortcut = std::make_shared<sim::RingAllReduce>(*fast.t, o);
    REQUIRE(shortcut->exact());
    CHECK(shortcut->workers_to_simulate() == 1);
    const auto a = run_rounds(fast, shortcut, rounds, no_math, {}, kCompute);

    sim::set_ring_allreduce_fast_path(false);
    Bench full(doc);
    auto simulated = std::make_shared<sim::RingAllReduce>(*full.t, o);
    sim::set_ring_allreduce_fast_path(true);
    REQUIRE(!simulated->exact());
    CHECK(simulated->workers_to_simulate() == c.n);
    const auto b = run_rounds(full, simulated, rounds, no_math, {}, kCompute);

    REQUIRE(a[0].done_s.size() == std::size_t(rounds));
    for (int r = 0; r < rounds; ++r) {
      CHECK(a[0].done_s[r] == b[0].done_s[r]);
      CHECK(a[0].means[r].size() == 0);
      for (int i = 0; i < c.n; ++i) CHECK(b[i].means[r].size() == 0);
    }
    CHECK(fast.counters().bits_total == full.counters().bits_total);
    CHECK(fast.counters().bytes_wire == full.counters().bytes_wire);
    CHECK(fast.counters().messages == full.counters().messages);
    CHECK(fast.engine.events_processed() * 4 < full.engine.events_processed());
    if (c.d % c.n == 0) {  // the closed form, with the compressor's bits per coordinate
      const double bits = (std::string(c.compressor) == "fp16" ? 16.0 : 32.0) * c.d / c.n;
      CHECK(a[0].done_s.back() ==
            Approx(rounds * (kCompute + 2 * (c.n - 1) * (kAlpha + message_s(bits)))).epsilon(1e-9));
    }
  }
}
