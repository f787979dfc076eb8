// The network model against closed forms (docs/design.md §7): a lone message takes
// α + (P+H)/β; n simultaneous messages into one ingress finish together at
// α + n(P+H)/β (fair) or one after another (fifo); fluid rates are recomputed when a
// transfer starts; a slow port limits only its own flows (fair) but holds up the
// queue behind it (fifo).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <vector>

#include "network_helpers.hpp"

using namespace dlsim::sim;

namespace {

using dlsim::test::kAlpha;
using dlsim::test::kBeta;
using dlsim::test::kHeader;
using dlsim::test::payload;

// The cluster plus the arrival time of each (src, dst) message.
struct Cluster : dlsim::test::NetworkCluster {
  using NetworkCluster::NetworkCluster;
  std::map<std::pair<int, int>, double> arrival;  // (src, dst) -> arrival time [s]
};

Task<void> send_after(Cluster& c, int src, int dst, Bits bits, double delay_s = 0) {
  co_await c.nodes[src].sleep(SimTime::from_seconds(delay_s));
  co_await c.nodes[src].send(dst, 0, payload(bits));
}

Task<void> receive(Cluster& c, int dst, int src) {
  Message m = co_await c.nodes[dst].recv(src, 0);
  c.arrival[{m.src, dst}] = c.engine.now().seconds();
}

}  // namespace

TEST_CASE("a lone message takes alpha + (P+H)/beta under both sharing models", "[network]") {
  for (Sharing sharing : {Sharing::fair, Sharing::fifo}) {
    Cluster c(2, sharing);
    const Bits p = 1'000'000;
    c.engine.spawn(send_after(c, 0, 1, p));
    c.engine.spawn(receive(c, 1, 0));
    c.engine.run();
    const double expected = kAlpha + double(p + kHeader) / kBeta;
    CHECK(c.arrival.at({0, 1}) == Approx(expected).epsilon(1e-9));
    CHECK(c.engine.now().seconds() == Approx(expected).epsilon(1e-9));
    CHECK(c.network->counters().bits_total == p);
    CHECK(c.network->counters().bytes_wire == (p + kHeader) / 8);
    CHECK(c.network->counters().messages == 1);
  }
}

TEST_CASE("bytes on the wire round payload plus header up to whole bytes", "[network]") {
  Cluster c(2, Sharing::fair, 3);
  c.engine.spawn(send_after(c, 0, 1, 10));
  c.engine.spawn(receive(c, 1, 0));
  c.engine.run();
  CHECK(c.network->counters().bits_total == 10);
  CHECK(c.network->counters().bytes_wire == 2);  // ceil(13 / 8)
}

TEST_CASE("n simultaneous messages into one ingress", "[network]") {
  const int n = 5;
  const Bits p = 400'000;
  const double s = double(p + kHeader);

  SECTION("fair: all finish together at alpha + n(P+H)/beta") {
    Cluster c(n + 1, Sharing::fair);
    for (int i = 1; i <= n; ++i) c.engine.spawn(send_after(c, i, 0, p));
    for (int i = 1; i <= n; ++i) c.engine.spawn(receive(c, 0, i));
    c.engine.run();
    for (int i = 1; i <= n; ++i)
      CHECK(c.arrival.at({i, 0}) == Approx(kAlpha + n * s / kBeta).epsilon(1e-9));
  }
  SECTION("fifo: one after another, the k-th at alpha + k(P+H)/beta") {
    Cluster c(n + 1, Sharing::fifo);
    for (int i = 1; i <= n; ++i) c.engine.spawn(send_after(c, i, 0, p));
    for (int i = 1; i <= n; ++i) c.engine.spawn(receive(c, 0, i));
    c.engine.run();
    for (int i = 1; i <= n; ++i)
      CHECK(c.arrival.at({i, 0}) == Approx(kAlpha + i * s / kBeta).epsilon(1e-9));
  }
}

TEST_CASE("fair rates are recomputed when a transfer joins", "[network]") {
  // A starts at 0; B joins when A is half sent; from then on they share the ingress:
  // A ends at 1.5 S/beta, B (half sent by then) at 2 S/beta.
  Cluster c(3, Sharing::fair);
  const Bits p = 1'000'000;
  const double s = double(p + kHeader);
  c.engine.spawn(send_after(c, 1, 0, p));
  c.engine.spawn(send_after(c, 2, 0, p, 0.5 * s / kBeta));
  c.engine.spawn(receive(c, 0, 1));
  c.engine.spawn(receive(c, 0, 2));
  c.engine.run();
  CHECK(c.arrival.at({1, 0}) == Approx(kAlpha + 1.5 * s / kBeta).epsilon(1e-9));
  CHECK(c.arrival.at({2, 0}) == Approx(kAlpha + 2.0 * s / kBeta).epsilon(1e-9));
}

TEST_CASE("a slow ingress limits only its own flows (fair) but blocks the queue (fifo)",
          "[network]") {
  // Node 0 sends S to node 1 (ingress 1 Gbps) and then S to node 2 (10 Gbps).
  auto slow_node_1 = [](NetworkConfig& c) { c.set_ingress(1, 1e9); };
  const Bits p = 1'000'000;
  const double s = double(p + kHeader);
  auto scenario = [&](Sharing sharing) {
    auto c = std::make_unique<Cluster>(3, sharing, kHeader, slow_node_1);
    c->engine.spawn(send_after(*c, 0, 1, p));
    c->engine.spawn(send_after(*c, 0, 2, p));
    c->engine.spawn(receive(*c, 1, 0));
    c->engine.spawn(receive(*c, 2, 0));
    c->engine.run();
    return c;
  };
  SECTION("fair: max-min gives 1 Gbps to the slow flow and the other 9 Gbps to the fast one") {
    auto c = scenario(Sharing::fair);
    CHECK(c->arrival.at({0, 2}) == Approx(kAlpha + s / 9e9).epsilon(1e-9));
    CHECK(c->arrival.at({0, 1}) == Approx(kAlpha + s / 1e9).epsilon(1e-9));
  }
  SECTION("fifo: the fast flow waits behind the slow one at node 0's egress") {
    auto c = scenario(Sharing::fifo);
    CHECK(c->arrival.at({0, 1}) == Approx(kAlpha + s / 1e9).epsilon(1e-9));
    CHECK(c->arrival.at({0, 2}) == Approx(kAlpha + s / 1e9 + s / kBeta).epsilon(1e-9));
  }
}

TEST_CASE("per-link overrides change only that link", "[network]") {
  auto slow_link = [](NetworkConfig& c) { c.set_link(0, 1, SimTime::from_seconds(1e-3), 100e6); };
  const Bits p = 1'000'000;
  const double s = double(p + kHeader);
  for (Sharing sharing : {Sharing::fair, Sharing::fifo}) {
    Cluster c(3, sharing, kHeader, slow_link);
    c.engine.spawn(send_after(c, 0, 1, p));
    c.engine.spawn(send_after(c, 1, 0, p));  // the reverse direction keeps the defaults
    c.engine.spawn(send_after(c, 2, 1, p, 1.0));
    c.engine.spawn(receive(c, 1, 0));
    c.engine.spawn(receive(c, 0, 1));
    c.engine.spawn(receive(c, 1, 2));
    c.engine.run();
    CHECK(c.arrival.at({0, 1}) == Approx(1e-3 + s / 100e6).epsilon(1e-9));
    CHECK(c.arrival.at({1, 0}) == Approx(kAlpha + s / kBeta).epsilon(1e-9));
    CHECK(c.arrival.at({2, 1}) == Approx(1.0 + kAlpha + s / kBeta).epsilon(1e-9));
  }
}

TEST_CASE("a slow link shared by two flows is the bottleneck of both (fair)", "[network]") {
  auto slow_link = [](NetworkConfig& c) { c.set_link(0, 1, std::nullopt, 1e9); };
  Cluster c(2, Sharing::fair, 0, slow_link);
  const Bits p = 1'000'000;
  c.engine.spawn(send_after(c, 0, 1, p));
  c.engine.spawn(send_after(c, 0, 1, p));
  c.engine.spawn([](Cluster& c) -> Task<void> {
    for (int k = 0; k < 2; ++k) {
      co_await c.nodes[1].recv(0, 0);
      c.arrival[{k, 1}] = c.engine.now().seconds();
    }
  }(c));
  c.engine.run();
  CHECK(c.arrival.at({0, 1}) == Approx(kAlpha + 2 * double(p) / 1e9).epsilon(1e-9));
  CHECK(c.arrival.at({1, 1}) == Approx(kAlpha + 2 * double(p) / 1e9).epsilon(1e-9));
}

TEST_CASE("a parameter-server round: n uploads then n downloads", "[network]") {
  // Workers 0..n-1 send P to the server n at once, the server answers each with P:
  // the round ends at 2(alpha + n(P+H)/beta) under both models.
  const int n = 4;
  const Bits p = 800'000;
  const double s = double(p + kHeader);
  for (Sharing sharing : {Sharing::fair, Sharing::fifo}) {
    Cluster c(n + 1, sharing);
    std::vector<double> done(n);
    for (int i = 0; i < n; ++i) {
      c.engine.spawn([](Cluster& c, int i, int n, Bits p, double& done) -> Task<void> {
        co_await c.nodes[i].send(n, 0, payload(p));
        co_await c.nodes[i].recv(n, 1);
        done = c.engine.now().seconds();
      }(c, i, n, p, done[i]));
    }
    c.engine.spawn([](Cluster& c, int n, Bits p) -> Task<void> {
      for (int i = 0; i < n; ++i) co_await c.nodes[n].recv(i, 0);
      std::vector<NodeId> all;
      for (int i = 0; i < n; ++i) all.push_back(i);
      co_await c.nodes[n].broadcast(all, 1, payload(p));
    }(c, n, p));
    c.engine.run();
    const double expected = 2 * (kAlpha + n * s / kBeta);
    if (sharing == Sharing::fair) {
      for (double t : done) CHECK(t == Approx(expected).epsilon(1e-9));
    } else {
      // fifo serves the downloads one by one; the last one ends the round.
      CHECK(*std::max_element(done.begin(), done.end()) == Approx(expected).epsilon(1e-9));
      CHECK(*std::min_element(done.begin(), done.end()) ==
            Approx(2 * kAlpha + (n + 1) * s / kBeta).epsilon(1e-9));
    }
  }
}

TEST_CASE("a receive posted before or after the arrival gets the same message", "[network]") {
  Cluster c(2, Sharing::fair);
  double late_receive = 0;
  c.engine.spawn(send_after(c, 0, 1, 1000));
  c.engine.spawn([](Cluster& c, double& t) -> Task<void> {
    co_await c.nodes[1].sleep(SimTime::from_seconds(1.0));
    Message m = co_await c.nodes[1].recv(0, 0);
    CHECK(m.payload_bits() == 1000);
    t = c.engine.now().seconds();
  }(c, late_receive));
  c.engine.run();
  CHECK(late_receive == 1.0);
}

TEST_CASE("max-min fairness with two bottleneck levels", "[network]") {
  // A: 0->1 (ingress 1 at 2 Gbps), B: 0->2, C: 3->2. Progressive filling fixes A at
  // 2 Gbps first; B and C then share ingress 2 at 5 Gbps each (egress 0 has 8 left).
  auto slow_ingress = [](NetworkConfig& c) { c.set_ingress(1, 2e9); };
  Cluster c(4, Sharing::fair, 0, slow_ingress);
  const Bits p = 1'000'000;
  c.engine.spawn(send_after(c, 0, 1, p));
  c.engine.spawn(send_after(c, 0, 2, p));
  c.engine.spawn(send_after(c, 3, 2, p));
  c.engine.spawn(receive(c, 1, 0));
  c.engine.spawn(receive(c, 2, 0));
  c.engine.spawn(receive(c, 2, 3));
  c.engine.run();
  CHECK(c.arrival.at({0, 2}) == Approx(kAlpha + double(p) / 5e9).epsilon(1e-9));
  CHECK(c.arrival.at({3, 2}) == Approx(kAlpha + double(p) / 5e9).epsilon(1e-9));
  CHECK(c.arrival.at({0, 1}) == Approx(kAlpha + double(p) / 2e9).epsilon(1e-9));
}
