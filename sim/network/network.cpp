#include "sim/network/network.hpp"

#include <stdexcept>

#include "sim/engine/heap_prefault.hpp"
#include "sim/network/fair_sharing.hpp"
#include "sim/network/fifo_sharing.hpp"

namespace dlsim::sim {

Network::Network(Engine& engine, NetworkConfig config)
    : engine_(engine), config_(std::move(config)), mailboxes_(config_.nodes()) {
  if (config_.model() == NetworkModel::lv08 && config_.sharing() != Sharing::fair)
    throw std::invalid_argument("network model lv08 needs fair sharing");
  if (config_.sharing() == Sharing::fair)
    scheduler_ = std::make_unique<FairSharing>(engine_, config_, static_cast<TransferSink&>(*this));
  else
    scheduler_ = std::make_unique<FifoSharing>(engine_, config_, static_cast<TransferSink&>(*this));
}

void Network::reserve_transfers(std::size_t transfers) {
  transfers = std::min<std::size_t>(transfers, kMostReservedTransfers);
  transfers_.reserve(transfers);
  free_.reserve(transfers);
  HeapPrefault::populate_capacity(transfers_);  // a round writes them (heap_prefault.hpp)
  HeapPrefault::populate_capacity(free_);
  scheduler_->reserve(transfers);
}

void Network::start(Message msg, Completion* done) {
  if (msg.src < 0 || msg.src >= config_.nodes() || msg.dst < 0 || msg.dst >= config_.nodes() ||
      msg.src == msg.dst)
    throw std::logic_error("message between invalid nodes");
  apply_due_changes();
  const Bits wire_bits = msg.payload_bits() + config_.header();
  counters_.add(msg.payload_bits(), (wire_bits + 7) / 8, 1);

  TransferId id;
  if (free_.empty()) {
    id = TransferId(transfers_.size());
    transfers_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  transfers_[id] = Transfer{std::move(msg), done};
  if (observer_) observer_->on_transfer_start(id, transfers_[id].msg, wire_bits, engine_.now());
  begin_transmission(id);
}

void Network::begin_transmission(TransferId id) {
  const Message& m = transfers_[id].msg;
  const double wire_bits = double(m.payload_bits() + config_.header());
  if (!config_.faults().outages.empty()) {
    if (auto up = config_.faults().down_until(m.src, m.dst, engine_.now())) {
      engine_.schedule(*up, this, kStart << 62 | id);
      return;
    }
  }
  scheduler_->add(id, m.src, m.dst, wire_bits);
}

bool Network::draw_drop(NodeId src, NodeId dst) {
  const NetworkFaults& f = config_.faults();
  const double p = f.drop_probability_of(src, dst);
  if (p <= 0) return false;
  const auto key = NetworkFaults::link_key(src, dst);
  auto it = drop_rngs_.find(key);
  if (it == drop_rngs_.end())
    it = drop_rngs_.emplace(key, make_rng(f.seed, "network-drops", key)).first;
  // A uniform double in [0, 1) from the top 53 bits: the same on every standard library.
  return double(it->second() >> 11) * 0x1.0p-53 < p;
}

void Network::transmitted(TransferId id) {
  apply_due_changes();
  const Message& m = transfers_[id].msg;
  if (dropped(m.src, m.dst)) {
    engine_.schedule(engine_.now() + config_.faults().retransmit_timeout, this,
                     kRetransmit << 62 | id);
    return;
  }
  if (observer_) observer_->on_transfer_transmitted(id, engine_.now());
  SimTime leaves = engine_.now();
  if (!config_.faults().outages.empty())
    leaves = config_.faults().down_until(m.src, m.dst, leaves).value_or(leaves);
  const SimTime latency = config_.link(m.src, m.dst).latency;
  engine_.schedule(
      leaves + (config_.model() == NetworkModel::lv08 ? lv08::latency(latency) : latency), this,
      id);
}

void Network::on_event(std::uint64_t arg) {
  const auto id = TransferId(arg & ((std::uint64_t(1) << 62) - 1));
  switch (arg >> 62) {
    case kArrival:
      return arrive(id);
    case kStart:
      apply_due_changes();
      return begin_transmission(id);
    case kRetransmit: {
      apply_due_changes();
      const Bits wire_bits = transfers_[id].msg.payload_bits() + config_.header();
      counters_.add(0, (wire_bits + 7) / 8, 0);
      return begin_transmission(id);
    }
  }
}

void Network::arrive(TransferId id) {
  Transfer& t = transfers_[id];
  Completion* done = t.done;
  const NodeId dst = t.msg.dst;
  t.done = nullptr;
  if (observer_) observer_->on_transfer_arrived(id, engine_.now());
  if (auto receiver = mailboxes_[dst].deliver(std::move(t.msg)))
    engine_.schedule_resume(engine_.now(), receiver);
  t.msg = Message{};
  free_.push_back(id);
  if (done && --done->pending == 0 && done->waiter)
    engine_.schedule_resume(engine_.now(), done->waiter);
}

void Network::apply_changes_due_now() {
  auto& schedule = config_.faults().schedule;
  bool changed = false;
  while (next_change_ < schedule.size() && schedule[next_change_].at <= engine_.now()) {
    const ScheduledChange& c = schedule[next_change_++];
    if (c.node >= 0) {
      if (c.egress) config_.set_egress(c.node, *c.egress);
      if (c.ingress) config_.set_ingress(c.node, *c.ingress);
    } else {
      config_.set_link(c.from, c.to, c.latency, c.bandwidth);
    }
    changed = true;
  }
  if (changed) scheduler_->rates_changed();
}

}  // namespace dlsim::sim
