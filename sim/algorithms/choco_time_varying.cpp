// CHOCO-SGD, AdaG-SGD and CHOCO-gossip on time-varying undirected graphs
// (random-matching; ALGORITHMS.md §3 "Time-varying graphs"). A neighbour of round t may
// be gone in round t + 1 and come back later, so node i keeps, per neighbour j it has
// ever met, its own copy as j knows it, x̂_{i→j}, and j's copy as i knows it, x̂_{j→i}
// (both init 0). Iteration t:
//   local step (choco-sgd, adag-sgd);
//   for every j ∈ N_t(i): q_{i→j} = C(x_i − x̂_{i→j}) (message stream j + 1, so error
//     feedback keeps one residual per neighbour); x̂_{i→j} ← x̂_{i→j} + q_{i→j} (decoded);
//   add each received q_{j→i} to x̂_{j→i};
//   r_i = Σ_{j∈N_t(i)} w^t_ij (x̂_{j→i} − x̂_{i→j});   x_i ← x_i + γ r_i (adag: γ_i ⊙ r_i).
// x̂_{j→i} at i and x̂_{j→i} at j are the same sums of the same decoded messages, and
// w^t is symmetric, so the terms cancel pairwise and Σ_i x_i is preserved; a neighbour
// that reappears finds both copies where it left them. Memory: two vectors per
// neighbour ever met (summary.json `gossip_memory`). Sends to several neighbours go one
// after the other (random-matching has one neighbour per round). `order` does not apply.
// Threads: the local step and the encodings are one compute job; the engine thread only
// collects the round's messages, which a second compute job (no simulated time) decodes
// and applies with the consensus step; the messages are let go on the engine thread
// after it, so the senders' payload pools see releases only between phases
// (sim/network/payload_pool.hpp).
//
// @inproceedings{koloskova2019decentralized,
//   title={Decentralized Stochastic Optimization and Gossip Algorithms with Compressed
//          Communication},
//   author={Koloskova, Anastasia and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICML}, year={2019}}
// @article{aketi2024adagossip,
//   title={AdaGossip: Adaptive Consensus Step-size for Decentralized Deep Learning with
//          Communication Compression},
//   author={Aketi, Sai Aparna and Hashemi, Abolfazl and Roy, Kaushik},
//   journal={arXiv preprint arXiv:2404.05919}, year={2024}}
#include <map>
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/consensus_step.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

struct PairCopies {
  models::Vector mine;    // x̂_{i→j}: my copy as j knows it
  models::Vector theirs;  // x̂_{j→i}: j's copy as I know it
};

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  const AlgorithmSpec& a = t.scenario.algorithm;
  const bool gradients = a.kind != "choco-gossip";
  const models::Index d = t.objective.parameters();
  ConsensusStep step(a);
  models::Vector x = t.initial_for(id), momentum, g, received, r;
  std::map<int, PairCopies> copies;  // every neighbour ever met
  std::vector<Payload> outgoing;     // this round's message to each out-neighbour
  std::vector<Message> incoming;     // this round's message from each in-neighbour
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    const topo::Neighborhood nb = graph->neighborhood(id, k);
    // Local step and every outgoing encoding: this worker's own state only, one compute
    // job (node.hpp); the messages then go out one after the other.
    outgoing.resize(nb.out.size());
    co_await me.compute([&] {
      models::ComputeCost cost;
      if (gradients) {
        cost = math.gradient(x, g);
        local_step_at(k, t.recorder.iteration_limit(), x, momentum, g, a, t.objective);
      }
      for (std::size_t o = 0; o < nb.out.size(); ++o) {
        const int j = nb.out[o];
        PairCopies& c = copies[j];
        if (c.mine.size() != x.size()) {
          c.mine = models::Vector::Zero(x.size());
          c.theirs = models::Vector::Zero(x.size());
        }
        outgoing[o] = math.encode(x - c.mine, d, j + 1);
        math.decode(Message{me.id(), NodeId(j), std::uint64_t(k), outgoing[o]}, received);
        if (x.size() > 0) c.mine += received;
      }
      return cost;
    });
    for (std::size_t o = 0; o < nb.out.size(); ++o)
      co_await me.send(NodeId(nb.out[o]), std::uint64_t(k), std::move(outgoing[o]));
    incoming.clear();
    for (std::size_t n = 0; n < nb.in.size(); ++n)
      incoming.push_back(co_await me.recv(NodeId(nb.in[n]), std::uint64_t(k)));
    // Decoding and the consensus step: a compute job that charges nothing (no simulated
    // time), run in parallel with the other workers'.
    co_await me.compute([&] {
      r = models::Vector::Zero(x.size());
      for (std::size_t n = 0; n < nb.in.size(); ++n) {
        math.decode(incoming[n], received);
        PairCopies& c = copies[nb.in[n]];  // undirected: created when sending
        if (x.size() == 0) continue;
        c.theirs += received;
        r += nb.in_weights[n] * (c.theirs - c.mine);
      }
      step.apply(x, r);
      return models::ComputeCost{};
    });
    incoming.clear();
    t.recorder.deposit(id, k + 1, x);
  }
}

}  // namespace

void launch_choco_time_varying(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
