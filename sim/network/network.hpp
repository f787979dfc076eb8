// The simulated network (DESIGN.md §7): transfers start at once, share ports under
// the configured model, and arrive α after their last bit has left. A message of P
// payload bits costs P + H bits on the wire (H = header); bits_total counts P,
// bytes_wire counts ceil((P + H) / 8).
#pragma once

#include <coroutine>
#include <memory>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/network/mailbox.hpp"
#include "sim/network/message.hpp"
#include "sim/network/network_config.hpp"
#include "sim/network/transfer_scheduler.hpp"
#include "sim/trace/activity_observer.hpp"

namespace dlsim::sim {

struct NetworkCounters {
  Bits bits_total = 0;
  std::uint64_t bytes_wire = 0;
  std::uint64_t messages = 0;
};

/// Counts outstanding deliveries of a send or broadcast and resumes the sender when
/// the last one has arrived.
struct Completion {
  int pending = 0;
  std::coroutine_handle<> waiter;
};

class Network final : private TransferSink, private EventHandler {
 public:
  Network(Engine& engine, NetworkConfig config);
  Network(const Network&) = delete;
  Network& operator=(const Network&) = delete;

  /// Starts the transfer of `msg` now. `done` (may be null) is decremented on arrival.
  void start(Message msg, Completion* done);

  Mailbox& mailbox(NodeId node) { return mailboxes_[node]; }
  const NetworkConfig& config() const { return config_; }
  const NetworkCounters& counters() const { return counters_; }

  /// Timeline hooks (tracing): transfers and node computations are reported to
  /// `observer` (null, the default, reports nothing).
  void set_observer(ActivityObserver* observer) { observer_ = observer; }
  ActivityObserver* observer() const { return observer_; }

 private:
  struct Transfer {
    Message msg;
    Completion* done = nullptr;
  };
  void transmitted(TransferId id) override;
  void on_event(std::uint64_t id) override;  // arrival

  Engine& engine_;
  NetworkConfig config_;
  std::unique_ptr<TransferScheduler> scheduler_;
  std::vector<Mailbox> mailboxes_;
  std::vector<Transfer> transfers_;  // slots, reused through free_
  std::vector<TransferId> free_;
  NetworkCounters counters_;
  ActivityObserver* observer_ = nullptr;
};

}  // namespace dlsim::sim
