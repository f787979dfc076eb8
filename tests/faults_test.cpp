// Faults of the simulated network (sim/network/faults.hpp) against independent truth:
// a dropped message's arrival time and wire bytes from a replay of the same seeded
// drop stream; the retransmission rate by Monte Carlo (E[attempts] = 1/(1-p)); outages
// and scheduled bandwidth changes against α-β closed forms; drops leave the learning
// result bit-identical; a 4x straggler makes a synchronous round's compute 4x longer.
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "network_helpers.hpp"
#include "run_helpers.hpp"

using namespace dlsim::sim;
using nlohmann::json;

namespace {

using dlsim::test::kAlpha;
using dlsim::test::kBeta;
using dlsim::test::kHeader;
using dlsim::test::payload;

// The cluster with the given faults, plus the arrival times of the messages 0 -> 1.
struct Cluster : dlsim::test::NetworkCluster {
  std::vector<double> arrivals;

  Cluster(int n, Sharing sharing, const NetworkFaults& faults)
      : NetworkCluster(n, sharing, kHeader,
                       [&](NetworkConfig& config) { config.faults() = faults; }) {}
};

// Sends `count` messages 0 -> 1 one after another (each waits for the previous).
Task<void> send_many(Cluster& c, int count, Bits bits) {
  for (int k = 0; k < count; ++k) co_await c.nodes[0].send(1, std::uint64_t(k), payload(bits));
}

Task<void> receive_many(Cluster& c, int count) {
  for (int k = 0; k < count; ++k) {
    co_await c.nodes[1].recv(0, std::uint64_t(k));
    c.arrivals.push_back(c.engine.now().seconds());
  }
}

// Transmissions until the first success on link 0 -> 1, replaying the drop stream.
std::vector<int> attempts_from_stream(std::uint64_t seed, double p, int messages) {
  Rng rng = make_rng(seed, "network-drops", NetworkFaults::link_key(0, 1));
  std::vector<int> attempts;
  for (int m = 0; m < messages; ++m) {
    int k = 1;
    while (double(rng() >> 11) * 0x1.0p-53 < p) ++k;
    attempts.push_back(k);
  }
  return attempts;
}

}  // namespace

TEST_CASE("a dropped message is resent after the timeout and arrives once", "[faults]") {
  for (Sharing sharing : {Sharing::fair, Sharing::fifo}) {
    NetworkFaults faults;
    faults.seed = 7;
    faults.drop_probability = 0.6;
    faults.retransmit_timeout = SimTime::from_seconds(1e-3);
    Cluster c(2, sharing, faults);
    const Bits p = 1'000'000;
    const int messages = 5;
    c.engine.spawn(send_many(c, messages, p));
    c.engine.spawn(receive_many(c, messages));
    c.engine.run();
    const auto attempts = attempts_from_stream(7, 0.6, messages);
    const double transmit = double(p + kHeader) / kBeta;
    double t = 0;
    int transmissions = 0;
    REQUIRE(c.arrivals.size() == std::size_t(messages));
    for (int m = 0; m < messages; ++m) {
      t += attempts[m] * transmit + (attempts[m] - 1) * 1e-3 + kAlpha;
      transmissions += attempts[m];
      CHECK(c.arrivals[m] == Approx(t).epsilon(1e-9));
    }
    CHECK(transmissions > messages);  // the seed does drop some
    CHECK(c.network->counters().bytes_wire == std::uint64_t(transmissions) * (p + kHeader) / 8);
    CHECK(c.network->counters().bits_total == Bits(messages) * p);
    CHECK(c.network->counters().messages == std::uint64_t(messages));
  }
}

TEST_CASE("retransmissions per message average p/(1-p) (Monte Carlo)", "[faults]") {
  NetworkFaults faults;
  faults.seed = 11;
  faults.drop_probability = 0.3;
  faults.retransmit_timeout = SimTime::from_seconds(1e-6);
  Cluster c(2, Sharing::fair, faults);
  const int messages = 20'000;
  const Bits p = 8 * 1000 - kHeader;  // 1000 wire bytes
  c.engine.spawn(send_many(c, messages, p));
  c.engine.spawn(receive_many(c, messages));
  c.engine.run();
  const double transmissions = double(c.network->counters().bytes_wire) / 1000.0;
  // Geometric attempts: mean 1/(1-p), sd of the mean sqrt(p)/(1-p)/sqrt(N) ~ 0.0055.
  CHECK(transmissions / messages == Approx(1 / 0.7).margin(0.03));
  CHECK(c.arrivals.size() == std::size_t(messages));
}

TEST_CASE("a link outage holds messages until it ends", "[faults]") {
  const Bits p = 1'000'000;
  const double transmit = double(p + kHeader) / kBeta;
  for (Sharing sharing : {Sharing::fair, Sharing::fifo}) {
    // Down from the start: the transfer begins when the link comes back.
    NetworkFaults down_at_start;
    down_at_start.outages.push_back({0, 1, SimTime{}, SimTime::from_seconds(2e-3)});
    Cluster a(2, sharing, down_at_start);
    a.engine.spawn(send_many(a, 1, p));
    a.engine.spawn(receive_many(a, 1));
    a.engine.run();
    CHECK(a.arrivals.at(0) == Approx(2e-3 + transmit + kAlpha).epsilon(1e-9));

    // Down while the last bit leaves: it arrives α after the outage ends. The reverse
    // link is unaffected.
    NetworkFaults down_later;
    down_later.outages.push_back(
        {0, 1, SimTime::from_seconds(transmit / 2), SimTime::from_seconds(3e-3)});
    Cluster b(2, sharing, down_later);
    b.engine.spawn(send_many(b, 1, p));
    b.engine.spawn(receive_many(b, 1));
    b.engine.run();
    CHECK(b.arrivals.at(0) == Approx(3e-3 + kAlpha).epsilon(1e-9));
  }
}

// --- whole runs (profile models: closed forms as in collectives_test.cpp) -----------

namespace {

constexpr double kRunAlpha = 20e-6;
constexpr double kRunBeta = 1e9;
constexpr double kHeaderBits = 512;
constexpr double kCompute = 3e-3;

json ring_scenario(int workers, std::int64_t parameters, int iterations) {
  return json{{"workers", workers},
              {"model", {{"kind", "profile"}, {"parameters", parameters}, {"compute_time", "3ms"}}},
              {"algorithm", {{"kind", "sgd"}, {"collective", "ring-allreduce"}}},
              {"network", {{"latency", "20us"}, {"bandwidth", "1Gbps"}, {"header", "64B"}}},
              {"stop", {{"iterations", iterations}}},
              {"metrics", {{"every", {{"iterations", 1}}}}}};
}

// The time_s column of metrics.csv, by iteration (row 0 is iteration 0).
std::vector<double> row_times(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::vector<double> times;
  while (std::getline(in, line)) times.push_back(std::stod(line.substr(0, line.find(','))));
  return times;
}

// The given column (0-based) of every row, as text (bit-identical comparison).
std::vector<std::string> column(const std::string& csv, int index) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> values;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string field;
    for (int i = 0; i <= index; ++i) std::getline(fields, field, ',');
    values.push_back(field);
  }
  return values;
}

}  // namespace

TEST_CASE("a scheduled bandwidth drop slows exactly the rounds after it", "[faults]") {
  const int n = 4, iterations = 5;
  const std::int64_t p = 100'000 * n;
  const auto step = [&](double beta) { return kRunAlpha + (32.0 * p / n + kHeaderBits) / beta; };
  const double round = kCompute + 2 * (n - 1) * step(kRunBeta);
  const double slow_round = kCompute + 2 * (n - 1) * step(kRunBeta / 10);
  json s = ring_scenario(n, p, iterations);
  // Halfway through round 3's compute (no transfer in flight), every ring link drops
  // to 10%: rounds 1-2 keep their time, rounds 3-5 take the slow one.
  const double at = 2 * round + kCompute / 2;
  s["network"]["schedule"] = json::array();
  for (int i = 0; i < n; ++i)
    s["network"]["schedule"].push_back({{"at", std::to_string(at) + "s"},
                                        {"from", i},
                                        {"to", (i + 1) % n},
                                        {"bandwidth", "100Mbps"}});
  const auto out = dlsim::test::run_scenario(s, "schedule");
  const auto times = row_times(out.metrics_csv);
  REQUIRE(times.size() == std::size_t(iterations + 1));
  for (int k = 1; k <= iterations; ++k) {
    INFO("iteration " << k);
    const double expected = k <= 2 ? k * round : 2 * round + (k - 2) * slow_round;
    CHECK(times[k] == Approx(expected).epsilon(1e-6));
  }
}

TEST_CASE("a 4x straggler makes the synchronous round's compute 4x longer", "[faults]") {
  // All-gather: each round waits for the slowest worker's compute, then its messages
  // need alpha + (n-1)S/beta through its own egress (collectives_test.cpp derives this).
  const int n = 4, iterations = 4;
  const std::int64_t p = 100'000;
  const double comm = kRunAlpha + (n - 1) * (32.0 * p + kHeaderBits) / kRunBeta;
  json s = ring_scenario(n, p, iterations);
  s["algorithm"]["collective"] = "allgather";
  for (const json& factors : {json{1, 1, 1, 1}, json{1, 1, 1, 4}}) {
    s["compute"] = {{"per_worker", factors}};
    const auto out = dlsim::test::run_scenario(s, "straggler4");
    const auto times = row_times(out.metrics_csv);
    REQUIRE(times.size() == std::size_t(iterations + 1));
    const double slowest = factors.back().get<double>();
    for (int k = 1; k <= iterations; ++k)
      CHECK(times[k] - times[k - 1] - comm == Approx(slowest * kCompute).epsilon(1e-6));
  }
}

TEST_CASE("5% drops cost wire bytes and time but leave the learning bit-identical", "[faults]") {
  for (const char* collective : {"parameter-server", "ring-allreduce"}) {
    INFO(collective);
    json s = {
        {"seed", 3},
        {"workers", 4},
        {"data", {{"source", "synthetic-regression"}, {"samples", 800}, {"features", 20}}},
        {"model", {{"kind", "least-squares"}}},
        {"algorithm",
         {{"kind", "sgd"}, {"collective", collective}, {"step_size", 0.05}, {"batch_size", 16}}},
        {"network", {{"latency", "20us"}, {"bandwidth", "1Gbps"}}},
        {"stop", {{"iterations", 60}}},
        {"metrics", {{"every", {{"iterations", 5}}}}}};
    const auto clean = dlsim::test::run_scenario(s, "nodrops");
    s["network"]["faults"] = {{"drop_probability", 0.05}};
    const auto lossy = dlsim::test::run_scenario(s, "drops");
    CHECK(column(lossy.metrics_csv, 1) == column(clean.metrics_csv, 1));  // iteration
    CHECK(column(lossy.metrics_csv, 6) == column(clean.metrics_csv, 6));  // train_loss
    // Rows snapshot the counters at their time, which the drops shift (ring all-reduce:
    // fast nodes may already send the next round's chunks): compare the run's totals.
    const auto& a = clean.summary["totals"];
    const auto& b = lossy.summary["totals"];
    CHECK(b["bits_total"] == a["bits_total"]);
    CHECK(b["messages"] == a["messages"]);
    CHECK(b["bytes_wire"].get<double>() > a["bytes_wire"].get<double>());
    CHECK(b["sim_time_s"].get<double>() > a["sim_time_s"].get<double>());
    // About 5% more wire bytes (1/(1-p) - 1 = 5.3%), within a loose Monte Carlo band.
    const double extra = b["bytes_wire"].get<double>() / a["bytes_wire"].get<double>() - 1;
    CHECK(extra > 0.01);
    CHECK(extra < 0.12);
  }
}
