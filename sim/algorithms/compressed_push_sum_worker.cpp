// The choco-sgp / adag-sgp process (the math and its derivation: compressed_push_sum.hpp).
// Iteration k, in the order of the AdaGossip code (choco_sgd.cpp; steps 1–2 skipped at
// k = 0):
//   1. receive round k − 1's messages; each in-neighbour's copy adds its decoded q
//   2. consensus step with round k − 1's shares (CompressedPushSumNode::mix)
//   3. local step on the numerator with g = ∇f_i(z_i; B), z_i = x_i ⊘ w_i (as sgp.cpp)
//   4. per outgoing stream: q = C(x_i − x̂) and the weight part q_w: choco-sgp's scalar
//      w_i − ŵ in fp32 (32 bits), adag-sgp's vector w_i − ŵ (ŵ starts at 1) with the
//      scenario's compressor on its own stream (error feedback keeps a separate residual),
//      so an adag-sgp message costs the compressor's bits for d twice; the copy
//      adds the decoded parts; send [q; q_w] as one message (payload_pair.hpp). Static graphs: one
//      stream broadcast to every out- neighbour; time-varying graphs: one stream per edge, sent one
//      after the other.
// Metrics see the de-biased models z_i after step 4.
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/compressed_push_sum.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/payload_pair.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// P_li for every out-neighbour l of `id` in `round`: the in-weight l gives to `id`.
std::vector<double> out_shares(const topo::GraphSchedule& graph, int id, std::int64_t round,
                               const std::vector<int>& out) {
  std::vector<double> shares;
  for (int l : out) {
    const topo::Neighborhood theirs = graph.neighborhood(l, round);
    double share = 0;
    for (std::size_t n = 0; n < theirs.in.size(); ++n)
      if (theirs.in[n] == id) share += theirs.in_weights[n];
    shares.push_back(share);
  }
  return shares;
}

class CompressedPushSumWorker {
 public:
  CompressedPushSumWorker(Training& t, int id, const topo::GraphSchedule& graph)
      : t_(t),
        me_(t.nodes[id]),
        math_(t, id),
        a_(t.scenario.algorithm),
        graph_(graph),
        node_(t.initial_for(id), CompressedPushSumOptions{a_.consensus_step, a_.kind == "adag-sgp",
                                                          a_.beta, a_.epsilon, a_.step_band}),
        dimension_(t.objective.parameters()),
        weight_stream_offset_(t.workers() + 1) {}

  Task<void> run() {
    const std::int64_t limit = t_.recorder.iteration_limit();
    for (std::int64_t k = 0; k < limit; ++k) {
      const std::int64_t round = graph_.time_varying() ? k : 0;
      if (k > 0) {
        co_await receive(k - 1);
        ScopedWall timer(t_.wall.math_s);
        node_.mix(incoming_, outgoing_);
      }
      node_.debiased(z_);
      co_await me_.compute([&] {  // this worker's own state only (node.hpp)
        const models::ComputeCost cost = math_.gradient(z_, gradient_);
        local_step_at(k, limit, node_.numerator(), momentum_, gradient_, a_, t_.objective);
        return cost;
      });
      co_await send(k, graph_.neighborhood(me_.id(), round), round);
      node_.debiased(z_);
      t_.recorder.deposit(me_.id(), k + 1, z_);
    }
  }

 private:
  // Step 1 (messages tagged `k`, from the in-neighbours recorded when sending).
  Task<void> receive(std::int64_t k) {
    for (const CopyShare& in : incoming_) {
      Message m = co_await me_.recv(NodeId(in.key), std::uint64_t(k));
      auto [q, q_weight] = split_payload(*m.payload);
      math_.decode(Message{m.src, m.dst, m.tag, q}, q_);
      decode_weight(Message{m.src, m.dst, m.tag, q_weight}, q_weight_);
      node_.received(in.key, q_, q_weight_);
    }
  }

  // Step 4; records the shares the next consensus step uses.
  Task<void> send(std::int64_t k, const topo::Neighborhood& nb, std::int64_t round) {
    incoming_.clear();
    for (std::size_t n = 0; n < nb.in.size(); ++n)
      incoming_.push_back({nb.in[n], nb.in_weights[n]});
    const std::vector<double> shares = out_shares(graph_, me_.id(), round, nb.out);
    outgoing_.clear();
    if (!graph_.time_varying()) {
      double total = 0;
      for (double s : shares) total += s;
      outgoing_.push_back({0, total});
      const std::vector<NodeId> out(nb.out.begin(), nb.out.end());
      co_await me_.broadcast(out, std::uint64_t(k), encode(0, k));
      co_return;
    }
    for (std::size_t n = 0; n < nb.out.size(); ++n) {
      const int stream = nb.out[n] + 1;
      outgoing_.push_back({stream, shares[n]});
      co_await me_.send(NodeId(nb.out[n]), std::uint64_t(k), encode(stream, k));
    }
  }

  // [C(x − x̂); weight part] of `stream`; its copy adds the decoded parts.
  Payload encode(int stream, std::int64_t k) {
    node_.differences(stream, difference_, weight_difference_);
    Payload q = math_.encode(difference_, dimension_, stream);
    Payload q_weight =
        adaptive() ? math_.encode(weight_difference_, dimension_, weight_stream_offset_ + stream)
                   : math_.encode_fp32(weight_difference_, 1);
    math_.decode(Message{me_.id(), me_.id(), std::uint64_t(k), q}, q_);
    decode_weight(Message{me_.id(), me_.id(), std::uint64_t(k), q_weight}, q_weight_);
    node_.sent(stream, q_, q_weight_);
    return join_payloads(*q, *q_weight);
  }

  void decode_weight(const Message& m, models::Vector& out) {
    if (adaptive())
      math_.decode(m, out);
    else
      math_.decode_fp32(m, out);
  }

  bool adaptive() const { return a_.kind == "adag-sgp"; }

  Training& t_;
  Node& me_;
  WorkerMath math_;
  const AlgorithmSpec& a_;
  const topo::GraphSchedule& graph_;
  CompressedPushSumNode node_;
  models::Index dimension_;
  int weight_stream_offset_;  // adag-sgp's weight streams: offset + stream
  std::vector<CopyShare> incoming_, outgoing_;
  models::Vector z_, gradient_, momentum_, q_, q_weight_, difference_, weight_difference_;
};

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  CompressedPushSumWorker w(t, id, *graph);
  co_await w.run();
}

}  // namespace

void launch_compressed_push_sum(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
