// The gossip collective (sim/collectives/neighbour_exchange.hpp) on a small simulated
// cluster: payloads that carry their sender (and receiver, and round) in their size.
//  - exchange() on static and time-varying, directed and undirected graphs: every worker
//    gets exactly the messages of its in-neighbours of the round, in the order of in(),
//    with the round's weights, and nothing of another round;
//  - send_each(): every out-neighbour gets its own payload;
//  - a failed node: its neighbours get an Arrival without message and re-normalize by the
//    row rule (w_ii += w_ij, the Arrival's weight w_ij) or the column rule (p_ii += p_ji,
//    weight p_ji), and never send to it or wait for it again.
#include <catch2/catch.hpp>

#include <vector>

#include "network_helpers.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "topologies/registry.hpp"
#include "topologies/schedule.hpp"

using namespace dlsim;
using sim::Arrival;
using sim::FailureRule;
using sim::NeighbourExchange;
using sim::Task;

namespace {

topo::GraphSchedule graph(const std::string& kind, int n, const std::string& weights = "") {
  return topo::GraphSchedule::make(topo::topology_params(
      kind, n, nlohmann::json::object(), 1, weights.empty() ? std::string("metropolis") : weights));
}

sim::Bits bits_of(int round, int src, int dst = 0) {
  return 1 + 10000 * round + 100 * src + dst;
}

// Every worker runs `rounds` rounds and checks what it got against the graph itself.
Task<void> gossip(sim::Node& me, const topo::GraphSchedule& g, int rounds, bool each,
                  int* checked) {
  NeighbourExchange x(me, g);
  const int id = int(me.id());
  for (int k = 0; k < rounds; ++k) {
    x.begin_round(k);
    const topo::Neighborhood nb = g.neighborhood(id, g.time_varying() ? k : 0);
    REQUIRE(std::vector<int>(x.out().begin(), x.out().end()) == nb.out);
    REQUIRE(std::vector<int>(x.in().begin(), x.in().end()) == nb.in);
    CHECK(x.self_weight() == nb.self_weight);
    if (each) {
      std::vector<sim::Payload> payloads;
      for (int j : nb.out) payloads.push_back(test::payload(bits_of(k, id, j)));
      co_await x.send_each(std::uint64_t(k), payloads);
      co_await x.receive(std::uint64_t(k), k);
    } else {
      co_await x.exchange(std::uint64_t(k), test::payload(bits_of(k, id)), k);
    }
    REQUIRE(x.arrivals().size() == nb.in.size());
    for (std::size_t j = 0; j < nb.in.size(); ++j) {
      const Arrival& a = x.arrivals()[j];
      CHECK(a.index == j);
      CHECK(a.from == nb.in[j]);
      CHECK(a.weight == nb.in_weights[j]);
      REQUIRE(a.message);
      CHECK(a.message->payload->bits == bits_of(k, nb.in[j], each ? id : 0));
      ++*checked;
    }
    x.release();
    CHECK(x.arrivals().empty());
  }
}

}  // namespace

TEST_CASE("a gossip round delivers every in-neighbour's message of the round", "[exchange]") {
  struct Case {
    std::string kind;
    bool each;
  };
  for (const Case& c :
       {Case{"ring", false}, Case{"directed-exponential", false},
        Case{"one-peer-exponential", false}, Case{"random-matching", true}, Case{"torus", true}}) {
    INFO(c.kind << (c.each ? " send_each" : " exchange"));
    const int n = c.kind == "torus" ? 9 : 8;
    const nlohmann::json keys =
        c.kind == "torus" ? nlohmann::json{{"dims", {3, 3}}} : nlohmann::json::object();
    const topo::GraphSchedule g = topo::GraphSchedule::make(topo::topology_params(c.kind, n, keys));
    test::NetworkCluster cluster(n, sim::Sharing::fair);
    int checked = 0;
    for (int i = 0; i < n; ++i)
      cluster.engine.spawn(gossip(cluster.nodes[i], g, 5, c.each, &checked));
    cluster.engine.run();
    int expected = 0;
    for (int k = 0; k < 5; ++k)
      for (int i = 0; i < n; ++i)
        expected += int(g.neighborhood(i, g.time_varying() ? k : 0).in.size());
    CHECK(checked == expected);
    CHECK(expected > 0);
  }
}

namespace {

struct Seen {
  std::vector<Arrival> first_round;  // what node `watcher` got in round 0
  double self_weight_after = 0;
  std::vector<int> out_after, in_after;
  std::size_t second_round_arrivals = 0;
};

Task<void> survivor(sim::Node& me, const topo::GraphSchedule& g, sim::NodeFailures& failures,
                    FailureRule rule, Seen* seen) {
  NeighbourExchange x(me, g, &failures, rule);
  for (int k = 0; k < 2; ++k) {
    if (failures.stops_now(me.id(), k)) co_return;
    x.begin_round(k);
    co_await x.exchange(std::uint64_t(k), test::payload(100), k);
    if (seen && k == 0) {
      for (const Arrival& a : x.arrivals()) seen->first_round.push_back(a);
      seen->self_weight_after = x.self_weight();
      seen->out_after.assign(x.out().begin(), x.out().end());
      seen->in_after.assign(x.in().begin(), x.in().end());
    }
    if (seen && k == 1) seen->second_round_arrivals = x.arrivals().size();
    x.release();
  }
}

}  // namespace

TEST_CASE("a failed in-neighbour yields an arrival without message and re-normalized weights",
          "[exchange]") {
  // A star with uniform weights w_ij = 1/(d_i + 1): a leaf weighs the hub 0 with 1/2, the
  // hub each leaf with 1/4. Leaf 1 loses the hub: row rule w_11 += w_10 = 1/2; column rule
  // (push shares: p_01 = w_01 = 1/4 is what leaf 1 gave the hub) p_11 += 1/4.
  const topo::GraphSchedule g = graph("star", 4, "uniform");
  const topo::Neighborhood leaf = g.neighborhood(1, 0);
  REQUIRE(leaf.in == std::vector<int>{0});
  REQUIRE(leaf.in_weights[0] == 0.5);
  for (const FailureRule rule : {FailureRule::row, FailureRule::column}) {
    const bool row = rule == FailureRule::row;
    INFO((row ? "row rule" : "column rule"));
    test::NetworkCluster cluster(4, sim::Sharing::fair);
    sim::NodeFailures failures(cluster.engine, *cluster.network, 4,
                               {{0, sim::SimTime::from_seconds(0)}},
                               sim::SimTime::from_seconds(1e-3));
    Seen seen;
    for (int i = 0; i < 4; ++i)
      cluster.engine.spawn(survivor(cluster.nodes[i], g, failures, rule, i == 1 ? &seen : nullptr));
    cluster.engine.run();
    REQUIRE(seen.first_round.size() == 1);
    const Arrival& a = seen.first_round[0];
    CHECK(a.from == 0);
    CHECK(a.index == 0);
    CHECK_FALSE(a.message);
    const double expected = row ? 0.5 : 0.25;
    CHECK(a.weight == expected);
    CHECK(seen.self_weight_after == leaf.self_weight + expected);
    CHECK(seen.out_after.empty());  // never sends to the hub again
    CHECK(seen.in_after.empty());
    CHECK(seen.second_round_arrivals == 0);
    REQUIRE(failures.records().size() == 1);
    CHECK(failures.records()[0].detections.size() == 3);  // by every leaf
  }
}
