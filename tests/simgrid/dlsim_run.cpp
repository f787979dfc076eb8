// A plan (plan.hpp) run on dlsim's network (sim/network/network.hpp) with one process per
// node: the same steps, eager sends (Network::start), receives matched on the sender and
// a per-pair sequence number used as the tag.
#include <map>
#include <memory>

#include "plan.hpp"
#include "sim/runtime/node.hpp"

namespace dlsim::simgrid_conformance {

namespace {

using namespace dlsim::sim;

struct Cluster {
  Engine engine;
  std::unique_ptr<Network> network;
  std::unique_ptr<ComputeModel> compute;
  std::vector<Node> nodes;
};

// Starts one message per destination (each with its own tag) and resumes the sender
// when all have arrived.
struct SendAll {
  Network* network;
  NodeId src;
  std::vector<std::pair<NodeId, std::uint64_t>> messages;  // (destination, tag)
  Payload payload;
  Completion done{};
  bool await_ready() const noexcept { return messages.empty(); }
  void await_suspend(std::coroutine_handle<> h) {
    done.pending = int(messages.size());
    done.waiter = h;
    for (const auto& [dst, tag] : messages) network->start(Message{src, dst, tag, payload}, &done);
  }
  void await_resume() const noexcept {}
};

Task<void> node_process(Cluster& c, const Plan& plan, int id, RoundTimes& times) {
  Node& me = c.nodes[std::size_t(id)];
  std::map<int, std::uint64_t> sent, received;
  for (int r = 0; r < plan.rounds; ++r) {
    if (plan.computes[id]) co_await me.sleep(SimTime::from_seconds(plan.compute_s));
    for (const Step& step : plan.steps[id]) {
      if (!step.send_to.empty()) {
        auto bits = std::make_shared<models::Encoded>();
        bits->bits = Bits(step.bytes * 8);
        SendAll send{&me.network(), id, {}, bits};
        for (int to : step.send_to) send.messages.emplace_back(to, sent[to]++);
        co_await send;
      }
      for (int from : step.receive_from) co_await me.recv(from, received[from]++);
    }
    times[r][id] = c.engine.now().seconds();
  }
}

}  // namespace

RoundTimes run_dlsim(const Plan& plan) {
  Cluster c;
  NetworkConfig config(plan.nodes, SimTime::from_seconds(plan.latency), plan.link_bandwidth * 8,
                       Sharing::fair, 0);
  config.set_model(plan.lv08 ? NetworkModel::lv08 : NetworkModel::cm02);
  for (int i = 0; i < plan.nodes; ++i) {
    config.set_egress(i, plan.egress[i] * 8);
    config.set_ingress(i, plan.ingress[i] * 8);
  }
  c.network = std::make_unique<Network>(c.engine, config);
  c.compute = std::make_unique<ComputeModel>(1e9, std::vector<double>{}, 0.0, 1, plan.nodes);
  for (int i = 0; i < plan.nodes; ++i) c.nodes.emplace_back(i, c.engine, *c.network, *c.compute);
  RoundTimes times(std::size_t(plan.rounds), std::vector<double>(std::size_t(plan.nodes), -1.0));
  for (int i = 0; i < plan.nodes; ++i) c.engine.spawn(node_process(c, plan, i, times));
  c.engine.run();
  return times;
}

}  // namespace dlsim::simgrid_conformance
