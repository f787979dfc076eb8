// The choco-sgp / adag-sgp process (the math and its derivation: compressed_push_sum.hpp).
// Iteration k, in the order of the AdaGossip code (choco_node.hpp; steps 1–2 skipped at
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
//      after the other (the gossip collective, sim/collectives/neighbour_exchange.hpp).
// Metrics see the de-biased models z_i after step 4.
// Threads: the engine thread only collects round k − 1's messages and looks up round k's
// neighbours and shares; steps 1–4 (decoding, mixing, the local step, every encoding and
// the copies' updates) are one compute job (node.hpp), run in parallel with the other
// workers'. The collected messages are let go on the engine thread after the job, so the
// senders' payload pools see releases only between phases (sim/network/payload_pool.hpp).
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/compressed_push_sum.hpp"
#include "sim/algorithms/gossip_keys.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/payload_pair.hpp"
#include "sim/collectives/neighbour_exchange.hpp"
#include "sim/runtime/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

/// What choco-sgp and adag-sgp take from the scenario's algorithm section.
struct CompressedPushSumSetup {
  CompressedPushSumOptions options;
  const AlgorithmSpec& local_step;  // momentum, weight decay, schedule (local_step.hpp)
};

/// The one place that reads t.scenario.algorithm for choco-sgp and adag-sgp.
CompressedPushSumSetup compressed_push_sum_setup(const Training& t, bool adaptive) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const PushSumOptions& o = a.options_as<PushSumOptions>();
  return {{o.consensus_step, adaptive, o.beta, o.epsilon, o.step_band}, a};
}

class CompressedPushSumWorker {
 public:
  CompressedPushSumWorker(Training& t, int id, const CompressedPushSumSetup& setup,
                          const topo::GraphSchedule& graph)
      : t_(t),
        me_(t.nodes[id]),
        math_(t, id),
        setup_(setup),
        graph_(graph),
        gossip_(me_, graph),  // no node failures (failure_check.cpp)
        node_(t.initial_for(id), setup.options),
        dimension_(t.objective.parameters()),
        weight_stream_offset_(t.workers() + 1) {}

  Task<void> run() {
    const std::int64_t limit = t_.recorder.iteration_limit();
    for (std::int64_t k = 0; k < limit; ++k) {
      const std::int64_t round = graph_.time_varying() ? k : 0;
      if (k > 0) co_await gossip_.receive(std::uint64_t(k - 1), k);  // round k − 1's in()
      plan_round(k, round);
      co_await me_.compute([&] {  // this worker's own state only (node.hpp)
        if (k > 0) {
          add_received();
          node_.mix(incoming_, outgoing_);
        }
        node_.debiased(z_);
        const models::ComputeCost cost = math_.gradient(z_, gradient_);
        local_step_at(k, limit, node_.numerator(), momentum_, gradient_, setup_.local_step,
                      t_.objective);
        incoming_.swap(next_incoming_);
        outgoing_.swap(next_outgoing_);
        encode_all(k);
        node_.debiased(z_);
        return cost;
      });
      gossip_.release();  // let go on the engine thread (payload_pool.hpp)
      co_await send_all(k);
      t_.recorder.deposit(me_.id(), k + 1, z_);
    }
  }

 private:
  // Step 1 (inside the compute job): each in-neighbour's copy adds its decoded q. The
  // messages are round k − 1's, from the in-neighbours recorded in incoming_ (the same
  // order: both come from that round's in()).
  void add_received() {
    const auto arrivals = gossip_.arrivals();
    for (std::size_t n = 0; n < arrivals.size(); ++n) {
      const Message& m = *arrivals[n].message;
      auto [q, q_weight] = split_payload(*m.payload);
      math_.decode(Message{m.src, m.dst, m.tag, std::move(q)}, q_);
      decode_weight(Message{m.src, m.dst, m.tag, std::move(q_weight)}, q_weight_);
      node_.received(incoming_[n].key, q_, q_weight_);
    }
  }

  // On the engine thread: iteration k's neighbours (graph round `round`) and the shares
  // the consensus step after this round's messages uses (P_ij in, P_li out; swapped in by
  // the job).
  void plan_round(std::int64_t k, std::int64_t round) {
    gossip_.begin_round(k);
    const auto in = gossip_.in();
    const auto in_weights = gossip_.in_weights();
    next_incoming_.clear();
    for (std::size_t n = 0; n < in.size(); ++n) next_incoming_.push_back({in[n], in_weights[n]});
    out_shares(round);
    next_outgoing_.clear();
    const auto out = gossip_.out();
    if (!graph_.time_varying()) {
      double total = 0;
      for (double s : shares_) total += s;
      next_outgoing_.push_back({0, total});
      return;
    }
    for (std::size_t n = 0; n < out.size(); ++n) next_outgoing_.push_back({out[n] + 1, shares_[n]});
  }

  /// P_li for every out-neighbour l of this node in `round`: the in-weight l gives to it.
  void out_shares(std::int64_t round) {
    shares_.clear();
    for (int l : gossip_.out()) {
      const topo::Neighborhood theirs = graph_.neighborhood(l, round);
      double share = 0;
      for (std::size_t n = 0; n < theirs.in.size(); ++n)
        if (theirs.in[n] == me_.id()) share += theirs.in_weights[n];
      shares_.push_back(share);
    }
  }

  // Step 4's encodings (inside the compute job), one per outgoing stream.
  void encode_all(std::int64_t k) {
    payloads_.resize(outgoing_.size());
    for (std::size_t n = 0; n < outgoing_.size(); ++n) payloads_[n] = encode(outgoing_[n].key, k);
  }

  // Step 4's sends (neighbour_exchange.hpp): static graphs one broadcast, time-varying one
  // message per edge, one after the other.
  Task<void> send_all(std::int64_t k) {
    if (!graph_.time_varying()) return gossip_.send(std::uint64_t(k), std::move(payloads_[0]));
    return gossip_.send_each(std::uint64_t(k), payloads_);
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

  bool adaptive() const { return setup_.options.adaptive; }

  Training& t_;
  Node& me_;
  WorkerMath math_;
  const CompressedPushSumSetup setup_;
  const topo::GraphSchedule& graph_;
  NeighbourExchange gossip_;
  CompressedPushSumNode node_;
  models::Index dimension_;
  int weight_stream_offset_;  // adag-sgp's weight streams: offset + stream
  // The consensus step's shares (of the previous round's messages) and the next ones.
  std::vector<CopyShare> incoming_, outgoing_, next_incoming_, next_outgoing_;
  std::vector<double> shares_;     // P_li per out-neighbour
  std::vector<Payload> payloads_;  // this round's message per outgoing stream
  models::Vector z_, gradient_, momentum_, q_, q_weight_, difference_, weight_difference_;
};

Task<void> worker(Training& t, int id, CompressedPushSumSetup setup,
                  std::shared_ptr<const topo::GraphSchedule> graph) {
  CompressedPushSumWorker w(t, id, setup, *graph);
  co_await w.run();
}

}  // namespace

void launch_compressed_push_sum(Engine& engine, Training& t, bool adaptive) {
  const auto graph = communication_graph(t.scenario);
  const CompressedPushSumSetup setup = compressed_push_sum_setup(t, adaptive);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, setup, graph));
}

}  // namespace dlsim::sim
