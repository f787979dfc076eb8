// The pending-event set: a binary min-heap of plain 32-byte records ordered by
// (time, sequence number). Equal times run in scheduling order (docs/design.md §6), as in
// ns-3's FIFO tie-break. No allocation per event once the vector has grown.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/engine/units.hpp"

namespace dlsim::sim {

class EventHandler;

/// One scheduled event. `handler == nullptr` means "resume the coroutine whose
/// address is `arg`"; otherwise `handler->on_event(arg)` is called.
struct Event {
  SimTime time;
  std::uint64_t seq;
  EventHandler* handler;
  std::uint64_t arg;
};

class EventQueue {
 public:
  void push(const Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
  }
  Event pop() {
    std::pop_heap(heap_.begin(), heap_.end(), later);
    Event e = heap_.back();
    heap_.pop_back();
    return e;
  }
  const Event& top() const { return heap_.front(); }
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  void clear() { heap_.clear(); }

 private:
  // std heaps are max-heaps: "a before b in the heap" means a is later.
  static bool later(const Event& a, const Event& b) {
    return a.time != b.time ? a.time > b.time : a.seq > b.seq;
  }
  std::vector<Event> heap_;
};

}  // namespace dlsim::sim
