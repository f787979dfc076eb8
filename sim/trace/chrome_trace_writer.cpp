#include "sim/trace/chrome_trace_writer.hpp"

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace dlsim::sim {

namespace {

constexpr int kComputeThread = 0, kSendThread = 1, kRecvThread = 2;

// Simulated microseconds, the unit of "ts" and "dur".
std::string micros(SimTime t) {
  return fmt::format("{}", double(t.ps) / 1e6);
}

}  // namespace

ChromeTraceWriter::ChromeTraceWriter(const std::filesystem::path& dir, int workers, int nodes,
                                     std::uint64_t limit)
    : partial_(dir / "trace.json.partial"),
      final_(dir / "trace.json"),
      workers_(workers),
      nodes_(nodes),
      limit_(limit) {
  file_ = std::fopen(partial_.c_str(), "w");
  if (!file_)
    throw std::runtime_error(
        fmt::format("cannot write {}: {}", partial_.string(), std::strerror(errno)));
  std::fputs("{\"traceEvents\":[\n", file_);
}

ChromeTraceWriter::~ChromeTraceWriter() {
  if (file_) std::fclose(file_);  // an unfinished run keeps the .partial name
}

bool ChromeTraceWriter::admit(int events) {
  if (written_ + std::uint64_t(events) <= limit_) return true;
  dropped_ += std::uint64_t(events);
  return false;
}

void ChromeTraceWriter::emit(const std::string& event) {
  if (written_ > 0) std::fputs(",\n", file_);
  std::fputs(event.c_str(), file_);
  ++written_;
}

void ChromeTraceWriter::counter(SimTime now) {
  if (!admit(1)) return;
  emit(fmt::format(R"({{"name":"bits in flight","ph":"C","ts":{},"pid":{},"args":{{"bits":{}}}}})",
                   micros(now), nodes_, in_flight_));
}

void ChromeTraceWriter::on_compute(NodeId node, SimTime start, SimTime duration) {
  if (!admit(1)) return;
  emit(fmt::format(R"({{"name":"compute","ph":"X","ts":{},"dur":{},"pid":{},"tid":{}}})",
                   micros(start), micros(duration), node, kComputeThread));
}

void ChromeTraceWriter::on_transfer_start(std::uint32_t slot, const Message& msg, Bits wire_bits,
                                          SimTime now) {
  if (open_.size() <= slot) open_.resize(slot + 1);
  OpenTransfer& t = open_[slot];
  t = OpenTransfer{msg.src, msg.dst, next_id_++, wire_bits, false, true};
  in_flight_ += wire_bits;
  if (admit(2)) {
    t.traced = true;
    const std::string args = fmt::format(R"("args":{{"payload_bits":{},"wire_bits":{},"tag":{}}})",
                                         msg.payload_bits(), wire_bits, msg.tag);
    emit(fmt::format(
        R"({{"name":"send to {}","cat":"send","ph":"b","id":{},"ts":{},"pid":{},"tid":{},{}}})",
        msg.dst, 2 * t.id, micros(now), msg.src, kSendThread, args));
    emit(fmt::format(
        R"({{"name":"recv from {}","cat":"recv","ph":"b","id":{},"ts":{},"pid":{},"tid":{},{}}})",
        msg.src, 2 * t.id + 1, micros(now), msg.dst, kRecvThread, args));
  }
  counter(now);
}

void ChromeTraceWriter::on_transfer_transmitted(std::uint32_t slot, SimTime now) {
  OpenTransfer& t = open_[slot];
  t.sending = false;
  if (!t.traced) return;
  emit(fmt::format(
      R"({{"name":"send to {}","cat":"send","ph":"e","id":{},"ts":{},"pid":{},"tid":{}}})", t.dst,
      2 * t.id, micros(now), t.src, kSendThread));
}

void ChromeTraceWriter::on_transfer_arrived(std::uint32_t slot, SimTime now) {
  OpenTransfer& t = open_[slot];
  in_flight_ -= t.wire_bits;
  if (t.traced) {
    if (t.sending)  // arrival without a transmitted report: close the send span too
      emit(fmt::format(
          R"({{"name":"send to {}","cat":"send","ph":"e","id":{},"ts":{},"pid":{},"tid":{}}})",
          t.dst, 2 * t.id, micros(now), t.src, kSendThread));
    emit(fmt::format(
        R"({{"name":"recv from {}","cat":"recv","ph":"e","id":{},"ts":{},"pid":{},"tid":{}}})",
        t.src, 2 * t.id + 1, micros(now), t.dst, kRecvThread));
  }
  t.traced = false;
  counter(now);
}

void ChromeTraceWriter::finish() {
  if (!file_) return;
  const std::uint64_t span_events = written_;
  const auto meta = [&](const std::string& name, int pid, int tid, const std::string& value) {
    const nlohmann::json args{{"name", value}};
    std::string e = fmt::format(R"({{"name":"{}","ph":"M","pid":{},)", name, pid);
    if (tid >= 0) e += fmt::format(R"("tid":{},)", tid);
    emit(e + fmt::format(R"("args":{}}})", args.dump()));
  };
  for (int node = 0; node < nodes_; ++node) {
    meta("process_name", node, -1,
         node < workers_ ? fmt::format("worker {}", node) : fmt::format("server {}", node));
    emit(fmt::format(
        R"({{"name":"process_sort_index","ph":"M","pid":{},"args":{{"sort_index":{}}}}})", node,
        node));
    meta("thread_name", node, kComputeThread, "compute");
    meta("thread_name", node, kSendThread, "send");
    meta("thread_name", node, kRecvThread, "recv");
  }
  meta("process_name", nodes_, -1, "network");
  const nlohmann::json other{{"time_unit", "simulated microseconds"},
                             {"events", span_events},
                             {"events_dropped", dropped_},
                             {"limit", limit_},
                             {"truncated", dropped_ > 0}};
  std::fprintf(file_, "\n],\"displayTimeUnit\":\"ns\",\"otherData\":%s}\n", other.dump().c_str());
  // A write that failed earlier (a full disk) leaves the error flag set: check it too.
  errno = 0;
  const bool failed = std::fflush(file_) != 0 || std::ferror(file_);
  const int error = errno;
  if (std::fclose(std::exchange(file_, nullptr)) != 0 || failed)
    throw std::runtime_error("cannot write " + partial_.string() + ": " +
                             (error != 0 ? std::strerror(error) : "write error"));
  if (::rename(partial_.c_str(), final_.c_str()) != 0)
    throw std::runtime_error("cannot rename " + partial_.string() + ": " + std::strerror(errno));
}

}  // namespace dlsim::sim
