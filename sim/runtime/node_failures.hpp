// Node failures of decentralized runs (issue 10; scenario keys network.faults.fail and
// fail_timeout, checked in sim/scenario/failure_check.cpp).
//
// A failing worker stops at its first iteration boundary at or after its failure time:
// it has finished (and its messages have arrived for) every earlier iteration, and it
// sends nothing more; its coroutine returns. Messages already addressed to it are still
// transmitted and charged (their senders cannot know yet) and are never read.
//
// Its neighbours notice through a receive with a deadline: a worker waiting for the
// message of peer j gives up at
//     max(now, max(since, stop_j) + fail_timeout)
// where `since` is when it began waiting for that round's messages and stop_j the time
// j stopped. The detector is perfect: a live peer, however slow, is waited for, so the
// algorithms' invariants (conserved sums) never break through a false suspicion.
// Consequently fail_timeout is only the detection delay; a real deployment would need
// one longer than its slowest round. What the neighbour then does with the weight of
// the failed peer is the algorithm's business (sim/algorithms/failures.hpp).
//
// Bookkeeping is allocation-free once the watch table has grown: one slot per receive
// that is waiting, reused; a timer event carries (slot, generation), so a receive that
// completed normally turns its timer into a no-op. Everything runs on the engine's
// clock and in its event order, so runs stay deterministic.
#pragma once

#include <coroutine>
#include <cstdint>
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/engine.hpp"
#include "sim/network/network.hpp"
#include "sim/runtime/node.hpp"

namespace dlsim::sim {

/// What happened to one configured failure (summary.json "failures").
struct NodeFailureRecord {
  struct Detection {
    NodeId by;               // the neighbour that gave up waiting
    SimTime time;            // when it gave up
    std::int64_t iteration;  // its iteration (0-based) at that moment
  };
  NodeId node = 0;
  SimTime at{};                       // configured failure time
  std::optional<SimTime> stopped;     // when it stopped (absent: the run ended first)
  std::int64_t iterations_done = 0;   // iterations it completed
  std::vector<Detection> detections;  // in time order
};

class NodeFailures final : private EventHandler {
 public:
  struct Failure {
    NodeId node;
    SimTime at;
  };
  NodeFailures(Engine& engine, Network& network, int workers, std::vector<Failure> failures,
               SimTime timeout);
  NodeFailures(const NodeFailures&) = delete;
  NodeFailures& operator=(const NodeFailures&) = delete;

  /// Worker `id` at the boundary before its iteration `iteration` (= iterations done):
  /// true when its failure time has come. It is then recorded as stopped, the timers of
  /// receives waiting for it start, and the caller must send nothing more.
  bool stops_now(NodeId id, std::int64_t iteration);

  /// A receive that yields the message, or nullopt when `src` has failed (see above).
  class Receive {
   public:
    Receive(NodeFailures* failures, Node& me, NodeId src, std::uint64_t tag, SimTime since,
            std::int64_t iteration)
        : inner_(me.recv(src, tag)),
          failures_(failures),
          me_(me.id()),
          src_(src),
          since_(since),
          iteration_(iteration) {}
    bool await_ready() { return inner_.await_ready(); }
    void await_suspend(std::coroutine_handle<> h) {
      inner_.await_suspend(h);
      if (failures_) slot_ = failures_->watch(me_, src_, since_, iteration_, h, &gave_up_);
    }
    std::optional<Message> await_resume() {
      if (gave_up_) return std::nullopt;
      if (failures_ && slot_ != kNoSlot) failures_->release(slot_);
      return inner_.await_resume();
    }

   private:
    static constexpr std::uint32_t kNoSlot = ~std::uint32_t(0);
    Node::RecvAwaiter inner_;
    NodeFailures* failures_;  // null: a plain receive (no failures configured)
    NodeId me_, src_;
    SimTime since_;
    std::int64_t iteration_;
    std::uint32_t slot_ = kNoSlot;
    bool gave_up_ = false;
  };

  SimTime timeout() const { return timeout_; }
  const std::vector<NodeFailureRecord>& records() const { return records_; }
  /// summary.json "failures": {"fail_timeout_s", "nodes": [{"node", "at_s", "stopped_s"
  /// (null: the run ended first), "iterations_done", "detected_by": [{"node", "time_s",
  /// "iteration"}]}]}; times in simulated seconds, iterations 0-based.
  nlohmann::json summary() const;

 private:
  struct Watch {
    NodeId waiter = 0, src = 0;
    SimTime since{};
    std::int64_t iteration = 0;
    std::coroutine_handle<> handle;
    bool* gave_up = nullptr;
    std::uint32_t generation = 0;
    bool active = false;
  };
  std::uint32_t watch(NodeId waiter, NodeId src, SimTime since, std::int64_t iteration,
                      std::coroutine_handle<> h, bool* gave_up);
  void release(std::uint32_t slot);
  void start_timer(std::uint32_t slot, SimTime stopped);
  void on_event(std::uint64_t arg) override;

  Engine& engine_;
  Network& network_;
  SimTime timeout_;
  std::vector<int> record_of_;  // worker -> index into records_, -1: never fails
  std::vector<NodeFailureRecord> records_;
  std::vector<Watch> watches_;
  std::vector<std::uint32_t> free_;
};

}  // namespace dlsim::sim
