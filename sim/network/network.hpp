// The simulated network (docs/design.md §7): transfers start at once, share ports under
// the configured sharing, and arrive α after their last bit has left (13.01 α under
// network.model lv08, network_model.hpp). A message of P
// payload bits costs P + H bits on the wire (H = header); bits_total counts P,
// bytes_wire counts ceil((P + H) / 8) per transmission (a dropped message is sent again,
// sim/network/faults.hpp).
#pragma once

#include <coroutine>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/engine/engine.hpp"
#include "sim/engine/rng.hpp"
#include "sim/network/activity_observer.hpp"
#include "sim/network/mailbox.hpp"
#include "sim/network/message.hpp"
#include "sim/network/network_config.hpp"
#include "sim/network/transfer_scheduler.hpp"

namespace dlsim::sim {

struct NetworkCounters {
  Bits bits_total = 0;
  std::uint64_t bytes_wire = 0;
  std::uint64_t messages = 0;

  /// Adds to the counters, saturating at 2^64 - 1 instead of wrapping.
  void add(Bits payload_bits, std::uint64_t wire_bytes, std::uint64_t count) {
    if (__builtin_add_overflow(bits_total, payload_bits, &bits_total)) bits_total = UINT64_MAX;
    if (__builtin_add_overflow(bytes_wire, wire_bytes, &bytes_wire)) bytes_wire = UINT64_MAX;
    if (__builtin_add_overflow(messages, count, &messages)) messages = UINT64_MAX;
  }
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
  /// Makes room for `transfers` transfers in flight at once (a run's messages per round),
  /// so that the tables indexed by transfer do not grow by doubling, copying and touching
  /// fresh pages twice over, while a million-worker round starts. Capacity only: a wrong
  /// guess costs address space, never results. At most kMostReservedTransfers.
  void reserve_transfers(std::size_t transfers);
  static constexpr std::size_t kMostReservedTransfers = std::size_t(1) << 24;

  Mailbox& mailbox(NodeId node) { return mailboxes_[node]; }
  const NetworkConfig& config() const { return config_; }
  const NetworkCounters& counters() const { return counters_; }
  /// Counts transfers an exact fast path accounted for without simulating them one by
  /// one (the ring all-reduce shortcut, sim/collectives/ring_allreduce.hpp).
  void charge(Bits payload_bits, std::uint64_t bytes_wire, std::uint64_t messages) {
    counters_.add(payload_bits, bytes_wire, messages);
  }

  /// Timeline hooks (tracing): transfers and node computations are reported to
  /// `observer` (null, the default, reports nothing).
  void set_observer(ActivityObserver* observer) { observer_ = observer; }
  ActivityObserver* observer() const { return observer_; }

 private:
  struct Transfer {
    Message msg;
    Completion* done = nullptr;
  };
  // Event kinds, in the two top bits of the event argument (the rest: the transfer id).
  static constexpr std::uint64_t kArrival = 0, kStart = 1, kRetransmit = 2;
  void transmitted(TransferId id) override;
  void on_event(std::uint64_t arg) override;
  void arrive(TransferId id);
  // Hands the transfer to the scheduler now, or when its link's outage ends.
  void begin_transmission(TransferId id);
  // Whether this transmission of src -> dst is lost (a draw of the link's own stream);
  // false at once when no drops are configured.
  bool dropped(NodeId src, NodeId dst) {
    return config_.faults().any_drops() && draw_drop(src, dst);
  }
  bool draw_drop(NodeId src, NodeId dst);
  // Applies the scheduled changes due by now. Inline: called for every transfer event,
  // and most runs schedule none.
  void apply_due_changes() {
    if (next_change_ < config_.faults().schedule.size()) apply_changes_due_now();
  }
  void apply_changes_due_now();

  Engine& engine_;
  NetworkConfig config_;
  std::unique_ptr<TransferScheduler> scheduler_;
  std::vector<Mailbox> mailboxes_;
  std::vector<Transfer> transfers_;  // slots, reused through free_
  std::vector<TransferId> free_;
  NetworkCounters counters_;
  ActivityObserver* observer_ = nullptr;
  std::size_t next_change_ = 0;                       // into config_.faults().schedule
  std::unordered_map<std::uint64_t, Rng> drop_rngs_;  // per link, created on first use
};

}  // namespace dlsim::sim
