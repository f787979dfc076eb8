// What a simulated process sees of the world: its id, the clock, and awaitable
// operations that take simulated time (docs/design.md §6):
//   co_await me.compute([&] { return math.gradient(x, g); });
//                                           // runs the math (in parallel with other
//                                           // nodes' at this instant, compute_job.hpp);
//                                           // its returned cost becomes time
//   co_await me.compute(cost);              // a cost without math: time only
//   co_await me.send(peer, tag, payload);   // returns when the message has arrived
//   co_await me.broadcast(peers, tag, p);   // one payload, |peers| transfers
//   Message m = co_await me.recv(peer, tag);
//   co_await me.sleep(dt);
// Sends are eager: the transfer starts at once whether or not the receiver waits.
#pragma once

#include <coroutine>
#include <span>
#include <type_traits>

#include "sim/engine/engine.hpp"
#include "sim/network/network.hpp"
#include "sim/runtime/compute_job.hpp"
#include "sim/runtime/compute_model.hpp"

namespace dlsim::sim {

class Node {
 public:
  Node(NodeId id, Engine& engine, Network& network, ComputeModel& compute)
      : id_(id), engine_(&engine), network_(&network), compute_(&compute) {}

  NodeId id() const { return id_; }
  Network& network() const { return *network_; }
  SimTime now() const { return engine_->now(); }

  struct SleepAwaiter {
    Engine* engine;
    SimTime until;
    bool await_ready() const noexcept { return until <= engine->now(); }
    void await_suspend(std::coroutine_handle<> h) { engine->schedule_resume(until, h); }
    void await_resume() const noexcept {}
  };
  SleepAwaiter sleep(SimTime dt) { return {engine_, engine_->now() + dt}; }
  SleepAwaiter compute(const models::ComputeCost& cost) {
    const SimTime duration = compute_->duration(id_, cost);
    if (ActivityObserver* observer = network_->observer())  // tracing only
      observer->on_compute(id_, engine_->now(), duration);
    return sleep(duration);
  }
  /// Runs `math` (returns the models::ComputeCost to charge) as a compute job: the
  /// process resumes `duration(cost)` after now. `math` must touch only this node's own
  /// state (compute_job.hpp); it may run on another thread.
  template <ComputeMath F>
  ComputeAwaiter<std::decay_t<F>> compute(F&& math) {
    return {*engine_, *compute_, network_->observer(), id_, std::forward<F>(math)};
  }
  /// Math that charges nothing (decoding and mixing received models): a compute job, so
  /// that it runs on the pool with the other nodes', when `has_math`; otherwise (a model
  /// without math: empty vectors, nothing to decode) run on the spot, saving a job phase
  /// and its events. The process goes on at now either way.
  template <ComputeMath F>
  ComputeAwaiter<std::decay_t<F>> compute_uncharged(F&& math, bool has_math) {
    return {*engine_, *compute_, network_->observer(), id_, std::forward<F>(math), !has_math};
  }

  struct SendAwaiter {
    Network* network;
    std::span<const NodeId> peers;
    std::uint64_t tag;
    Payload payload;
    NodeId src;
    Completion done{};
    bool await_ready() const noexcept { return peers.empty(); }
    void await_suspend(std::coroutine_handle<> h) {
      done.pending = int(peers.size());
      done.waiter = h;
      for (NodeId p : peers) network->start(Message{src, p, tag, payload}, &done);
    }
    void await_resume() const noexcept {}
  };
  /// Sends one payload to every peer; resumes when all copies have arrived.
  SendAwaiter broadcast(std::span<const NodeId> peers, std::uint64_t tag, Payload payload) {
    return {network_, peers, tag, std::move(payload), id_};
  }
  SendAwaiter send(const NodeId& peer, std::uint64_t tag, Payload payload) {
    return broadcast(std::span<const NodeId>(&peer, 1), tag, std::move(payload));
  }

  struct RecvAwaiter {
    Mailbox* mailbox;
    NodeId src;
    std::uint64_t tag;
    Message out{};
    bool await_ready() { return mailbox->try_take(src, tag, out); }
    void await_suspend(std::coroutine_handle<> h) { mailbox->wait(src, tag, h, &out); }
    Message await_resume() { return std::move(out); }
  };
  /// Receives the oldest message from `src` (or kAnySource) with `tag`.
  RecvAwaiter recv(NodeId src, std::uint64_t tag) { return {&network_->mailbox(id_), src, tag}; }

 private:
  NodeId id_;
  Engine* engine_;
  Network* network_;
  ComputeModel* compute_;
};

}  // namespace dlsim::sim
