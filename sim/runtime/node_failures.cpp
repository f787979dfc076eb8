#include "sim/runtime/node_failures.hpp"

#include <algorithm>
#include <stdexcept>

namespace dlsim::sim {

NodeFailures::NodeFailures(Engine& engine, Network& network, int workers,
                           std::vector<Failure> failures, SimTime timeout)
    : engine_(engine), network_(network), timeout_(timeout), record_of_(std::size_t(workers), -1) {
  for (const Failure& f : failures) {
    if (f.node < 0 || f.node >= workers || record_of_[std::size_t(f.node)] >= 0)
      throw std::invalid_argument("NodeFailures: bad or repeated worker id");
    record_of_[std::size_t(f.node)] = int(records_.size());
    NodeFailureRecord r;
    r.node = f.node;
    r.at = f.at;
    records_.push_back(std::move(r));
  }
}

bool NodeFailures::stops_now(NodeId id, std::int64_t iteration) {
  const int index = record_of_[std::size_t(id)];
  if (index < 0) return false;
  NodeFailureRecord& r = records_[std::size_t(index)];
  if (r.stopped || engine_.now() < r.at) return false;
  r.stopped = engine_.now();
  r.iterations_done = iteration;
  for (std::uint32_t slot = 0; slot < watches_.size(); ++slot)
    if (watches_[slot].active && watches_[slot].src == id) start_timer(slot, *r.stopped);
  return true;
}

std::uint32_t NodeFailures::watch(NodeId waiter, NodeId src, SimTime since, std::int64_t iteration,
                                  std::coroutine_handle<> h, bool* gave_up) {
  std::uint32_t slot;
  if (!free_.empty()) {
    slot = free_.back();
    free_.pop_back();
  } else {
    slot = std::uint32_t(watches_.size());
    watches_.emplace_back();
  }
  Watch& w = watches_[slot];
  w.waiter = waiter;
  w.src = src;
  w.since = since;
  w.iteration = iteration;
  w.handle = h;
  w.gave_up = gave_up;
  w.active = true;
  const int index =
      src >= 0 && std::size_t(src) < record_of_.size() ? record_of_[std::size_t(src)] : -1;
  if (index >= 0 && records_[std::size_t(index)].stopped)
    start_timer(slot, *records_[std::size_t(index)].stopped);
  return slot;
}

void NodeFailures::release(std::uint32_t slot) {
  Watch& w = watches_[slot];
  w.active = false;
  ++w.generation;  // a pending timer of this slot becomes a no-op
  free_.push_back(slot);
}

void NodeFailures::start_timer(std::uint32_t slot, SimTime stopped) {
  const Watch& w = watches_[slot];
  const SimTime from = std::max(w.since, stopped);
  const SimTime due = timeout_ > SimTime::max() - from ? SimTime::max() : from + timeout_;
  const SimTime deadline = std::max(engine_.now(), due);
  engine_.schedule(deadline, this, (std::uint64_t(w.generation) << 32) | slot);
}

void NodeFailures::on_event(std::uint64_t arg) {
  const auto slot = std::uint32_t(arg & 0xffffffffu);
  const auto generation = std::uint32_t(arg >> 32);
  Watch& w = watches_[slot];
  if (!w.active || w.generation != generation) return;
  if (!network_.mailbox(w.waiter).cancel(w.handle))
    throw std::logic_error("NodeFailures: the timed-out receive was not waiting");
  *w.gave_up = true;
  records_[std::size_t(record_of_[std::size_t(w.src)])].detections.push_back(
      {w.waiter, engine_.now(), w.iteration});
  const std::coroutine_handle<> h = w.handle;
  release(slot);
  engine_.schedule_resume(engine_.now(), h);
}

nlohmann::json NodeFailures::summary() const {
  nlohmann::json nodes = nlohmann::json::array();
  for (const NodeFailureRecord& r : records_) {
    nlohmann::json detected = nlohmann::json::array();
    for (const auto& d : r.detections)
      detected.push_back(
          {{"node", d.by}, {"time_s", d.time.seconds()}, {"iteration", d.iteration}});
    nodes.push_back({{"node", r.node},
                     {"at_s", r.at.seconds()},
                     {"stopped_s", r.stopped ? nlohmann::json(r.stopped->seconds()) : nullptr},
                     {"iterations_done", r.iterations_done},
                     {"detected_by", std::move(detected)}});
  }
  return {{"fail_timeout_s", timeout_.seconds()}, {"nodes", std::move(nodes)}};
}

}  // namespace dlsim::sim
