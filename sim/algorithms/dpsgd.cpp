// D-PSGD (Lian et al., NeurIPS 2017, "Can Decentralized Algorithms Outperform
// Centralized Algorithms?"; ALGORITHMS.md §3): every node takes its local step, sends
// its new model to its out-neighbours of round k, then mixes the models it received
// from its in-neighbours of round k:
//   x_i ← local_step(x_i, ∇f_i(x_i; B));   x_i ← w_ii x_i + Σ_{j ∈ in_k(i)} w_ij x_j
// Works on every topology kind: static, time-varying (the round's graph comes from
// the topology's schedule) and directed (out- and in-neighbours differ). Full models
// (fp32) travel on every arc; round k's messages carry tag k, so a message of a
// later round is never mixed in early. A failed in-neighbour's weight goes to w_ii
// (node failures, failures.hpp).
// Threads: the local step and the encoding are one compute job; the engine thread only
// collects the round's messages, which a second compute job (no simulated time) decodes
// and mixes in, in the order received; the messages are let go on the engine thread
// after it, so the senders' payload pools see releases only between phases
// (sim/network/payload_pool.hpp).
#include <memory>
#include <optional>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

struct RoundPeers {
  std::vector<NodeId> out;
  std::vector<NodeId> in;
  double self_weight = 1.0;
  std::vector<double> in_weights;
};

RoundPeers peers_of(const topo::GraphSchedule& graph, int id, std::int64_t round) {
  topo::Neighborhood nb = graph.neighborhood(id, round);
  return {std::vector<NodeId>(nb.out.begin(), nb.out.end()),
          std::vector<NodeId>(nb.in.begin(), nb.in.end()), nb.self_weight,
          std::move(nb.in_weights)};
}

/// One term of the mixing sum: w_ij times a received model, or (a failed in-neighbour,
/// no message) times x itself.
struct MixTerm {
  double weight = 0;
  std::optional<Message> message;
};

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  models::Vector x = t.initial_for(id), momentum, g, received, mixed;
  RoundPeers peers = peers_of(*graph, id, 0);
  std::vector<MixTerm> terms;  // this round's, in the order received
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    if (fails_now(t, id, k)) co_return;  // failures.hpp
    if (k > 0 && graph->time_varying()) peers = peers_of(*graph, id, k);
    Payload message;
    co_await me.compute([&] {  // this worker's own state only (node.hpp)
      const models::ComputeCost cost = math.gradient(x, g);
      local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, t.scenario.algorithm,
                    t.objective);
      message = math.encode(x, t.objective.parameters());
      mixed = peers.self_weight * x;
      return cost;
    });
    co_await me.broadcast(peers.out, std::uint64_t(k), std::move(message));
    const SimTime since = me.now();
    terms.clear();
    for (std::size_t j = 0; j < peers.in.size();) {
      std::optional<Message> m =
          co_await receive_or_failure(t, id, peers.in[j], std::uint64_t(k), k, since);
      if (!m) {  // in[j] failed: its weight goes to x, from this round on (failures.hpp)
        terms.push_back({peers.in_weights[j], std::nullopt});
        peers.self_weight += peers.in_weights[j];
        forget_peer(peers.out, peers.in[j]);
        peers.in.erase(peers.in.begin() + std::ptrdiff_t(j));
        peers.in_weights.erase(peers.in_weights.begin() + std::ptrdiff_t(j));
        continue;
      }
      terms.push_back({peers.in_weights[j], std::move(m)});
      ++j;
    }
    // Decoding and mixing: a compute job that charges nothing (no simulated time).
    co_await me.compute([&] {
      for (const MixTerm& term : terms) {
        if (!term.message) {
          mixed += term.weight * x;
          continue;
        }
        math.decode(*term.message, received);
        if (received.size() == x.size()) mixed += term.weight * received;
      }
      x = mixed;
      return models::ComputeCost{};
    });
    terms.clear();  // let go on the engine thread (payload_pool.hpp)
    t.recorder.deposit(id, k + 1, x);
  }
}

}  // namespace

void launch_dpsgd(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
