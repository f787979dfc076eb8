// network.model lv08 (sim/network/network_model.hpp) against closed forms written from
// SimGrid 3.32's LV08 (src/surf/network_cm02.cpp), independently of SimGrid:
//   a lone message of P bits takes 13.01 α + P / (0.97 · min(β, 8γ / (2α))), γ = 4194304 B;
//   flows into one port share it in proportion to 1 / penalty,
//   penalty = α + 20537 B · (1/E_src + 1/β + 1/I_dst) (rates in bytes/s).
#include <catch2/catch.hpp>

#include <map>

#include "network_helpers.hpp"

using namespace dlsim::sim;

namespace {

constexpr double kGamma = 4194304;  // bytes
constexpr double kS = 20537;        // bytes

struct Cluster : dlsim::test::NetworkCluster {
  Cluster(int n, SimTime alpha, double beta, const std::function<void(NetworkConfig&)>& more = {})
      : NetworkCluster(n, Sharing::fair, 0, [&](NetworkConfig& c) {
          c = NetworkConfig(n, alpha, beta, Sharing::fair, 0);
          c.set_model(NetworkModel::lv08);
          if (more) more(c);
        }) {}
  std::map<std::pair<int, int>, double> arrival;  // (src, dst) -> arrival time [s]
};

Task<void> send(Cluster& c, int src, int dst, Bits bits) {
  co_await c.nodes[src].send(dst, 0, dlsim::test::payload(bits));
}

Task<void> receive(Cluster& c, int dst, int src) {
  Message m = co_await c.nodes[dst].recv(src, 0);
  c.arrival[{m.src, dst}] = c.engine.now().seconds();
}

double lone_message(double alpha, double beta, double bits) {
  const double window = 8 * kGamma / (2 * alpha);
  return 13.01 * alpha + bits / (0.97 * std::min(beta, window));
}

}  // namespace

TEST_CASE("lv08: a lone message takes 13.01 alpha + P / (0.97 beta)", "[network_lv08]") {
  const double alpha = 10e-6, beta = 1e9;
  const Bits p = 8'000'000;
  REQUIRE(8 * kGamma / (2 * alpha) > beta);  // the window does not bind
  Cluster c(2, SimTime::from_seconds(alpha), beta);
  c.engine.spawn(send(c, 0, 1, p));
  c.engine.spawn(receive(c, 1, 0));
  c.engine.run();
  const double expected = 13.01 * alpha + double(p) / (0.97 * beta);
  CHECK(expected == Approx(lone_message(alpha, beta, double(p))).epsilon(1e-15));
  CHECK(c.arrival.at({0, 1}) == Approx(expected).epsilon(1e-10));
}

TEST_CASE("lv08: on a long link the TCP window bounds the rate to gamma / (2 alpha)",
          "[network_lv08]") {
  // α = 50 ms: 8γ / (2α) = 335.5 Mbit/s < β = 10 Gbit/s. The bound uses α before the
  // factor 13.01 (SimGrid's lat_current_).
  const double alpha = 50e-3, beta = 10e9;
  const Bits p = 80'000'000;
  const double window = 8 * kGamma / (2 * alpha);
  REQUIRE(window < beta);
  Cluster c(2, SimTime::from_seconds(alpha), beta);
  c.engine.spawn(send(c, 0, 1, p));
  c.engine.spawn(receive(c, 1, 0));
  c.engine.run();
  CHECK(c.arrival.at({0, 1}) == Approx(13.01 * alpha + double(p) / (0.97 * window)).epsilon(1e-10));
  CHECK(c.arrival.at({0, 1}) == Approx(lone_message(alpha, beta, double(p))).epsilon(1e-10));
}

TEST_CASE("lv08: flows into one ingress share it in proportion to 1 / penalty", "[network_lv08]") {
  // Nodes 1 and 2 send P bits each to node 0 (ingress β). Node 2's egress is 4β, so its
  // penalty is smaller and it gets more: value_i = β · (1/p_i) / (1/p_1 + 1/p_2). When it
  // ends, node 1's flow has the whole ingress: value β.
  const double alpha = 10e-6, beta = 1e9;
  const Bits p = 8'000'000;
  Cluster c(3, SimTime::from_seconds(alpha), beta,
            [&](NetworkConfig& config) { config.set_egress(2, 4 * beta); });
  for (int src : {1, 2}) c.engine.spawn(send(c, src, 0, p));
  for (int src : {1, 2}) c.engine.spawn(receive(c, 0, src));
  c.engine.run();
  const double B = beta / 8;  // bytes/s, SimGrid's unit
  const double p1 = alpha + kS * (1 / B + 1 / B + 1 / B);
  const double p2 = alpha + kS * (1 / (4 * B) + 1 / B + 1 / B);
  REQUIRE(p2 < p1);
  const double v1 = beta * (1 / p1) / (1 / p1 + 1 / p2), v2 = beta - v1;
  const double t2 = double(p) / (0.97 * v2);                            // node 2's flow ends
  const double t1 = t2 + (double(p) - 0.97 * v1 * t2) / (0.97 * beta);  // then node 1's
  CHECK(c.arrival.at({2, 0}) == Approx(13.01 * alpha + t2).epsilon(1e-10));
  CHECK(c.arrival.at({1, 0}) == Approx(13.01 * alpha + t1).epsilon(1e-10));
  // Without the weights (cm02) both would end together at 2P/β.
  CHECK(t2 < 2 * double(p) / (0.97 * beta) * (1 - 1e-3));
}

TEST_CASE("lv08: a flow at its window bound beside a flow held by its own egress",
          "[network_lv08]") {
  // Node 1 -> 0 over a 50 ms link (window 8γ/(2·50 ms) = 335.5 Mbit/s); node 2 -> 0 over
  // the default 10 us link with node 2's egress at 100 Mbit/s; ingress 0 is 1 Gbit/s.
  // Node 2's egress saturates first (value 100 Mbit/s); of the 900 Mbit/s left on the
  // ingress, node 1's flow (the only one left) reaches its bound first. Both rates are
  // 0.97 times those values; without the bound (cm02) node 1 would get 900 Mbit/s.
  const double alpha = 10e-6, beta = 1e9, far = 50e-3, slow = 100e6;
  const Bits p = 8'000'000;
  Cluster c(3, SimTime::from_seconds(alpha), beta, [&](NetworkConfig& config) {
    config.set_link(1, 0, SimTime::from_seconds(far), std::nullopt);
    config.set_egress(2, slow);
  });
  for (int src : {1, 2}) c.engine.spawn(send(c, src, 0, p));
  for (int src : {1, 2}) c.engine.spawn(receive(c, 0, src));
  c.engine.run();
  const double window = 8 * kGamma / (2 * far);
  REQUIRE(window < beta - slow);
  CHECK(c.arrival.at({2, 0}) == Approx(13.01 * alpha + double(p) / (0.97 * slow)).epsilon(1e-10));
  CHECK(c.arrival.at({1, 0}) == Approx(13.01 * far + double(p) / (0.97 * window)).epsilon(1e-10));
}

TEST_CASE("lv08 needs fair sharing", "[network_lv08]") {
  Engine engine;
  NetworkConfig config(2, SimTime::from_seconds(1e-6), 1e9, Sharing::fifo, 0);
  config.set_model(NetworkModel::lv08);
  CHECK_THROWS_AS(Network(engine, config), std::invalid_argument);
}
