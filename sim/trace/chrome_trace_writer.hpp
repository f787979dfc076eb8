// OUT/trace.json (docs/design.md §5, `dlsim run --trace`) in the Chrome trace-event
// format (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU),
// viewable in Perfetto (ui.perfetto.dev) and chrome://tracing:
//   - one process per node ("worker i", "server"), with threads compute / send / recv;
//   - compute spans: complete events {"ph":"X","ts","dur"} on the compute thread;
//   - each transfer: an async span on the sender from start until its last bit has
//     left ("send to j") and one on the receiver from start until arrival
//     ("recv from i"), as "b"/"e" pairs (transfers overlap without nesting);
//   - a counter "bits in flight" (wire bits sent and not yet arrived) on a
//     "network" process.
// Timestamps are simulated microseconds (ts = picoseconds / 1e6), as the format wants.
// At most `limit` events are written; after that only the ends of spans already begun,
// so the file stays well-formed, and "otherData" records the truncation. Written to
// trace.json.partial and renamed by finish(), so a trace.json is always complete.
#pragma once

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/network/activity_observer.hpp"

namespace dlsim::sim {

class ChromeTraceWriter final : public ActivityObserver {
 public:
  /// Nodes with id >= `workers` are servers.
  ChromeTraceWriter(const std::filesystem::path& dir, int workers, int nodes, std::uint64_t limit);
  ~ChromeTraceWriter() override;
  ChromeTraceWriter(const ChromeTraceWriter&) = delete;
  ChromeTraceWriter& operator=(const ChromeTraceWriter&) = delete;

  void on_compute(NodeId node, SimTime start, SimTime duration) override;
  void on_transfer_start(std::uint32_t slot, const Message& msg, Bits wire_bits,
                         SimTime now) override;
  void on_transfer_transmitted(std::uint32_t slot, SimTime now) override;
  void on_transfer_arrived(std::uint32_t slot, SimTime now) override;

  /// Writes the process and thread names and the closing, and renames the file.
  void finish();

  std::uint64_t events_written() const { return written_; }
  std::uint64_t events_dropped() const { return dropped_; }

 private:
  struct OpenTransfer {
    NodeId src = 0, dst = 0;
    std::uint64_t id = 0;
    Bits wire_bits = 0;
    bool traced = false;   // its begin events were written
    bool sending = false;  // the send span is still open
  };
  bool admit(int events);  // true when `events` more fit under the limit
  void emit(const std::string& event);
  void counter(SimTime now);

  std::filesystem::path partial_, final_;
  std::FILE* file_ = nullptr;
  int workers_, nodes_;
  std::uint64_t limit_;
  std::uint64_t written_ = 0, dropped_ = 0, next_id_ = 0;
  Bits in_flight_ = 0;
  std::vector<OpenTransfer> open_;  // by transfer slot
};

}  // namespace dlsim::sim
