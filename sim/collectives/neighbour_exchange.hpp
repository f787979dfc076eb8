// The decentralized collective: one gossip round on a GraphSchedule. Every worker
// contributes a message (an encoded vector) and gets the messages of its in-neighbours of
// the round; static or time-varying, directed or not (topologies/schedule.hpp). Each worker
// holds its own NeighbourExchange:
//   gossip.begin_round(k);                       // round k's out/in-neighbours and weights
//   co_await gossip.exchange(tag, payload, k);   // send to out(k), receive from in(k)
//   for (const Arrival& a : gossip.arrivals()) ...   // in the order of in(k)
//   gossip.release();                            // on the engine thread, after decoding
// or the halves send()/send_each() and receive() when an algorithm receives a round's
// messages later (CHOCO's adagossip order and the compressed push-sum read round k − 1's
// at the top of iteration k): every call uses the neighbourhood of the last begin_round(),
// so on a time-varying graph round k − 1's messages are received before begin_round(k).
// send() gives one payload to every out-neighbour (one encoding, |out| transfers);
// send_each() one payload per out-neighbour, one after the other (CHOCO's per-neighbour
// copies on time-varying graphs). The engine thread only moves messages: decoding and
// mixing belong in the caller's compute job; release() lets the messages go after it, so
// the senders' payload pools see releases only between phases (sim/network/payload_pool.hpp).
//
// Node failures (sim/runtime/node_failures.hpp, static undirected graphs): an in-neighbour
// found failed yields an Arrival without message; the exchange never sends to it nor waits
// for it again and re-normalizes its own weights by the algorithm's rule
// (sim/algorithms/failures.hpp):
//   row     (dpsgd, CHOCO)  w_ii ← w_ii + w_ij;          the Arrival's weight is w_ij
//   column  (push-sum, sgp) p_ii ← p_ii + p_ji (the share i pushed to j comes back);
//                           the Arrival's weight is p_ji
// On a time-varying graph each later round's neighbourhood is re-normalized the same way.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "sim/engine/task.hpp"
#include "sim/network/message.hpp"
#include "sim/runtime/node.hpp"
#include "sim/runtime/node_failures.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

/// How a worker re-normalizes its weights when an in-neighbour fails (header comment).
enum class FailureRule { row, column };

/// One message of a round, or the notice that its sender failed.
struct Arrival {
  std::uint32_t index = 0;  // position of the sender in in() when it was received
  NodeId from = 0;
  double weight = 0;               // w_ij of the round (failed: the weight that goes to i)
  std::optional<Message> message;  // nullopt: `from` failed
};

class NeighbourExchange {
 public:
  /// Worker `me` on `graph`; `failures` null when no node fails.
  NeighbourExchange(Node& me, const topo::GraphSchedule& graph, NodeFailures* failures = nullptr,
                    FailureRule rule = FailureRule::row);

  /// Round k's neighbourhood: graph round k on a time-varying graph, the static graph
  /// otherwise (loaded once); without the peers found failed so far.
  void begin_round(std::int64_t k);

  std::span<const NodeId> out() const { return out_; }
  std::span<const NodeId> in() const { return in_; }
  /// w_ii and the w_ij aligned with in(), re-normalized for failed peers.
  double self_weight() const { return self_weight_; }
  std::span<const double> in_weights() const { return in_weights_; }

  /// `message` to every out-neighbour; returns when every copy has arrived.
  Task<void> send(std::uint64_t tag, Payload message);
  /// messages[o] to out()[o], one after the other.
  Task<void> send_each(std::uint64_t tag, std::span<Payload> messages);
  /// Every in-neighbour's message tagged `tag`, in the order of in(), into arrivals();
  /// `iteration` is the caller's (for the failure records).
  Task<void> receive(std::uint64_t tag, std::int64_t iteration) {
    return send_then_receive(tag, Payload{}, false, iteration);
  }
  /// send() then receive().
  Task<void> exchange(std::uint64_t tag, Payload message, std::int64_t iteration) {
    return send_then_receive(tag, std::move(message), true, iteration);
  }

  /// The last receive()'s messages, until release().
  std::span<const Arrival> arrivals() const { return arrivals_; }
  /// Lets the received messages go (call on the engine thread).
  void release() { arrivals_.clear(); }

 private:
  // receive(), after sending `message` to every out-neighbour if `send`: one coroutine
  // frame per worker through the round, not one each for exchange, send and receive (a
  // million workers hold theirs all at once; 384 bytes, docs/design.md §6).
  Task<void> send_then_receive(std::uint64_t tag, Payload message, bool send,
                               std::int64_t iteration);
  void load(std::int64_t round);
  // `dead` leaves the neighbourhood of round_; returns the weight that goes to w_ii.
  double drop(NodeId dead);

  // Makes out_, in_ and in_weights_ views of this worker's own copies (before a drop
  // changes them).
  void own();
  // Points out_, in_ and in_weights_ at the own copies.
  void view_own();

  Node& me_;
  const topo::GraphSchedule& graph_;
  NodeFailures* failures_;
  FailureRule rule_;
  bool loaded_ = false;
  bool owned_ = false;  // out_, in_, in_weights_ view dropped_'s copies
  std::int64_t round_ = 0;
  // The neighbourhood: views into the round's graph (kept alive by round_graph_), so a
  // million workers on one static graph hold no copies; copied into dropped_ only when a
  // failed peer is dropped.
  std::shared_ptr<const topo::RoundGraph> round_graph_;
  std::span<const NodeId> out_, in_;
  double self_weight_ = 1.0;
  std::span<const double> in_weights_;
  // What only a worker that found a failed peer needs: one pointer per worker otherwise.
  struct Dropped {
    std::vector<NodeId> out, in;
    std::vector<double> weights;
    std::vector<NodeId> failed;  // in the order found
  };
  std::unique_ptr<Dropped> dropped_;
  std::vector<Arrival> arrivals_;
};

}  // namespace dlsim::sim
