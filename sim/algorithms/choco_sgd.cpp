// CHOCO-SGD, AdaG-SGD and CHOCO-gossip on static symmetric graphs (ALGORITHMS.md §3).
// Worker i keeps its model x_i, its public copy x̂_i (init 0) and s_i = Σ_{j∈N(i)} w_ij x̂_j
// (init 0), the neighbours' copies as seen through the messages q_j. Iteration k of the
// default order (the AdaGossip reference code's; steps 1–3 skipped at k = 0):
//   1. s_i ← s_i + Σ_j w_ij q_j           (the messages of iteration k − 1)
//   2. r_i = s_i + (w_ii − 1) x̂_i         (= Σ_j w_ij (x̂_j − x̂_i))
//   3. x_i ← x_i + γ r_i                  (adag-sgd: γ_i ⊙ r_i, consensus_step.hpp)
//   4. local step (local_step.hpp)        (choco-gossip: none)
//   5. q_i = C(x_i − x̂_i); x̂_i ← x̂_i + q_i; send q_i to every neighbour (one encoding).
// order "choco-paper" (the original CHOCO code): 4, 2–3 with the current copies, 5, then
// receive this iteration's q_j (1). x̂_i is updated with the decoded q_i, exactly what
// the neighbours add, so Σ_i r_i = 0 and, without gradients, the average of the models is
// preserved up to double rounding. Metrics see x_i after the iteration. A failed
// neighbour leaves s_i and gives its weight to w_ii (node failures, failures.hpp).
// Step 1 is split: the engine thread only collects the messages q_j; the worker's next
// compute job decodes them and adds them to s_i first thing, before step 2 reads s_i (in
// the same order, so the sums are the same doubles). The messages are let go on the
// engine thread after the job, so the senders' payload pools see releases only between
// phases (sim/network/payload_pool.hpp).
//
// @inproceedings{koloskova2019decentralized,
//   title={Decentralized Stochastic Optimization and Gossip Algorithms with Compressed
//          Communication},
//   author={Koloskova, Anastasia and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICML}, year={2019}}
// @inproceedings{koloskova2020decentralized,
//   title={Decentralized Deep Learning with Arbitrary Communication Compression},
//   author={Koloskova, Anastasia and Lin, Tao and Stich, Sebastian U. and Jaggi, Martin},
//   booktitle={ICLR}, year={2020}}
// @article{aketi2024adagossip,
//   title={AdaGossip: Adaptive Consensus Step-size for Decentralized Deep Learning with
//          Communication Compression},
//   author={Aketi, Sai Aparna and Hashemi, Abolfazl and Roy, Kaushik},
//   journal={arXiv preprint arXiv:2404.05919}, year={2024}}
#include <memory>

#include "sim/algorithms/algorithms.hpp"
#include "sim/algorithms/consensus_step.hpp"
#include "sim/algorithms/failures.hpp"
#include "sim/algorithms/local_step.hpp"
#include "sim/algorithms/worker_math.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

namespace {

class ChocoWorker {
 public:
  ChocoWorker(Training& t, int id, const topo::GraphSchedule& graph)
      : t_(t),
        me_(t.nodes[id]),
        math_(t, id),
        a_(t.scenario.algorithm),
        step_(a_),
        x_(t.initial_for(id)),
        dimension_(t.objective.parameters()) {
    topo::Neighborhood nb = graph.neighborhood(id, 0);
    out_.assign(nb.out.begin(), nb.out.end());
    in_.assign(nb.in.begin(), nb.in.end());
    self_weight_ = nb.self_weight;
    in_weights_ = std::move(nb.in_weights);
    public_copy_ = models::Vector::Zero(x_.size());
    neighbour_sum_ = models::Vector::Zero(x_.size());
    // With node failures, each neighbour's copy x̂_j, to take it out of s_i (failures.hpp).
    if (t.failures) copies_.assign(in_.size(), models::Vector::Zero(x_.size()));
  }

  Task<void> run() {
    const bool gradients = a_.kind != "choco-gossip";
    const bool paper_order = gradients && a_.order == "choco-paper";
    for (std::int64_t k = 0; k < t_.recorder.iteration_limit(); ++k) {
      if (fails_now(t_, me_.id(), k)) co_return;  // failures.hpp
      // The math between receiving and sending touches only this worker's state: one
      // compute job (node.hpp), run in parallel with the other workers' (--threads).
      if (paper_order) {
        co_await me_.compute([&] {
          add_received();  // the previous iteration's messages (k > 0)
          const models::ComputeCost cost = local_step(k);
          consensus();
          compress(k);
          return cost;
        });
        release_received();
        co_await me_.broadcast(out_, std::uint64_t(k), std::move(q_));
        co_await receive(k, k);
      } else {
        if (k > 0) co_await receive(k - 1, k);
        co_await me_.compute([&] {
          if (k > 0) {
            add_received();
            consensus();
          }
          const models::ComputeCost cost = gradients ? local_step(k) : models::ComputeCost{};
          compress(k);
          return cost;
        });
        release_received();
        co_await me_.broadcast(out_, std::uint64_t(k), std::move(q_));
      }
      t_.recorder.deposit(me_.id(), k + 1, x_);
    }
  }

 private:
  // Collects the messages q_j tagged `round` (in iteration k) for step 1.
  Task<void> receive(std::int64_t round, std::int64_t k) {
    const SimTime since = me_.now();
    for (std::size_t j = 0; j < in_.size();) {
      std::optional<Message> m =
          co_await receive_or_failure(t_, me_.id(), in_[j], std::uint64_t(round), k, since);
      if (!m) {
        forget_neighbour(j);
        continue;
      }
      received_messages_.push_back(ReceivedMessage{j, std::move(*m)});
      ++j;
    }
  }

  // Step 1 (inside the compute job): s_i ← s_i + Σ_j w_ij q_j over the collected
  // messages, in the order they were received. Decoded messages stay in
  // received_messages_ (marked) until the engine thread lets them go.
  void add_received() {
    for (; decoded_ < received_messages_.size(); ++decoded_) {
      const ReceivedMessage& r = received_messages_[decoded_];
      math_.decode(r.message, received_);
      if (received_.size() == x_.size() && x_.size() > 0) {
        neighbour_sum_ += in_weights_[r.neighbour] * received_;
        if (!copies_.empty()) copies_[r.neighbour] += received_;
      }
    }
  }

  // On the engine thread, after the job: lets the collected messages go.
  void release_received() {
    received_messages_.clear();
    decoded_ = 0;
  }

  // Neighbour in_[j] failed: w_ii ← w_ii + w_ij, s_i = Σ_{j alive} w_ij x̂_j (recomputed
  // from the copies), and no more messages to it. The messages collected so far refer to
  // in_ as it is, so they are added first (here on the engine thread; failures are rare).
  void forget_neighbour(std::size_t j) {
    add_received();
    self_weight_ += in_weights_[j];
    forget_peer(out_, in_[j]);
    in_.erase(in_.begin() + std::ptrdiff_t(j));
    in_weights_.erase(in_weights_.begin() + std::ptrdiff_t(j));
    copies_.erase(copies_.begin() + std::ptrdiff_t(j));
    if (x_.size() == 0) return;
    neighbour_sum_.setZero();
    for (std::size_t i = 0; i < in_.size(); ++i) neighbour_sum_ += in_weights_[i] * copies_[i];
  }

  // Steps 2–3: r_i = s_i + (w_ii − 1) x̂_i; x_i ← x_i + γ r_i.
  void consensus() {
    if (x_.size() == 0) return;
    gossip_error_ = neighbour_sum_ + (self_weight_ - 1) * public_copy_;
    step_.apply(x_, gossip_error_);
  }

  // Step 4 (inside the compute job); returns the gradient's cost.
  models::ComputeCost local_step(std::int64_t k) {
    const models::ComputeCost cost = math_.gradient(x_, gradient_);
    sim::local_step_at(k, t_.recorder.iteration_limit(), x_, momentum_, gradient_, a_,
                       t_.objective);
    return cost;
  }

  // Step 5 (inside the compute job): q_i = C(x_i − x̂_i); x̂_i ← x̂_i + q_i (decoded, as
  // the neighbours see it). The caller broadcasts q_.
  void compress(std::int64_t round) {
    q_ = math_.encode(x_ - public_copy_, dimension_);
    if (x_.size() > 0) {
      math_.decode(Message{me_.id(), me_.id(), std::uint64_t(round), q_}, received_);
      public_copy_ += received_;
    }
  }

  Training& t_;
  Node& me_;
  WorkerMath math_;
  const AlgorithmSpec& a_;
  ConsensusStep step_;
  models::Vector x_, public_copy_, neighbour_sum_, gossip_error_, momentum_, gradient_, received_;
  models::Index dimension_;
  Payload q_;  // this iteration's message
  struct ReceivedMessage {
    std::size_t neighbour;  // index into in_ (and in_weights_, copies_)
    Message message;
  };
  std::vector<ReceivedMessage> received_messages_;  // for step 1, in order of arrival
  std::size_t decoded_ = 0;                         // ... of which added to s_i
  std::vector<NodeId> out_, in_;
  double self_weight_ = 1.0;
  std::vector<double> in_weights_;
  std::vector<models::Vector> copies_;  // x̂_j per in-neighbour (node failures only)
};

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  ChocoWorker w(t, id, *graph);
  co_await w.run();
}

}  // namespace

void launch_choco(Engine& engine, Training& t) {
  const auto graph = std::make_shared<const topo::GraphSchedule>(communication_graph(t.scenario));
  if (graph->time_varying()) return launch_choco_time_varying(engine, t);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

}  // namespace dlsim::sim
