#include "sim/network/network.hpp"

#include <stdexcept>

#include "sim/network/fair_sharing.hpp"
#include "sim/network/fifo_sharing.hpp"

namespace dlsim::sim {

Network::Network(Engine& engine, NetworkConfig config)
    : engine_(engine), config_(std::move(config)), mailboxes_(config_.nodes()) {
  if (config_.sharing() == Sharing::fair)
    scheduler_ = std::make_unique<FairSharing>(engine_, config_, static_cast<TransferSink&>(*this));
  else
    scheduler_ = std::make_unique<FifoSharing>(engine_, config_, static_cast<TransferSink&>(*this));
}

void Network::start(Message msg, Completion* done) {
  if (msg.src < 0 || msg.src >= config_.nodes() || msg.dst < 0 || msg.dst >= config_.nodes() ||
      msg.src == msg.dst)
    throw std::logic_error("message between invalid nodes");
  const Bits wire_bits = msg.payload_bits() + config_.header();
  counters_.bits_total += msg.payload_bits();
  counters_.bytes_wire += (wire_bits + 7) / 8;
  counters_.messages += 1;

  TransferId id;
  if (free_.empty()) {
    id = TransferId(transfers_.size());
    transfers_.emplace_back();
  } else {
    id = free_.back();
    free_.pop_back();
  }
  const NodeId src = msg.src, dst = msg.dst;
  transfers_[id] = Transfer{std::move(msg), done};
  if (observer_) observer_->on_transfer_start(id, transfers_[id].msg, wire_bits, engine_.now());
  scheduler_->add(id, src, dst, double(wire_bits));
}

void Network::transmitted(TransferId id) {
  const Message& m = transfers_[id].msg;
  if (observer_) observer_->on_transfer_transmitted(id, engine_.now());
  engine_.schedule(engine_.now() + config_.link(m.src, m.dst).latency, this, id);
}

void Network::on_event(std::uint64_t arg) {
  const auto id = TransferId(arg);
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

}  // namespace dlsim::sim
