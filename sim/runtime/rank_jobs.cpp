// RankJobs (rank_jobs.hpp). One job's result on the wire: cost (flops, seconds), the
// error (none, bad input with where/what, or another failure with its text), then the
// messages (dimension, bits, bytes) in the order the math encoded them.
#include "sim/runtime/rank_jobs.hpp"

#include <stdexcept>
#include <string>

#include "sim/engine/byte_codec.hpp"
#include "sim/runtime/compute_job.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

namespace {

void write_payload(ByteWriter& w, const models::Encoded& p) {
  w.put(p.dimension);
  w.put(p.bits);
  w.put_bytes(p.bytes);
}

Payload read_payload(ByteReader& r) {
  auto e = std::make_shared<models::Encoded>();
  e->dimension = r.get<std::int64_t>();
  e->bits = r.get<std::uint64_t>();
  const auto bytes = r.get_bytes();
  e->bytes.assign(bytes.begin(), bytes.end());
  return e;
}

enum class ErrorKind : std::uint8_t { none, input, other };

void write_error(ByteWriter& w, std::exception_ptr error) {
  if (!error) {
    w.put(ErrorKind::none);
    return;
  }
  try {
    std::rethrow_exception(error);
  } catch (const InputError& e) {
    w.put(ErrorKind::input);
    w.put_string(e.where());
    w.put_string(e.problem());
  } catch (const std::exception& e) {
    w.put(ErrorKind::other);
    w.put_string(e.what());
  } catch (...) {
    w.put(ErrorKind::other);
    w.put_string("unknown error in a compute job");
  }
}

std::exception_ptr read_error(ByteReader& r) {
  switch (r.get<ErrorKind>()) {
    case ErrorKind::none:
      return nullptr;
    case ErrorKind::input: {
      std::string where = r.get_string();
      return std::make_exception_ptr(InputError(std::move(where), r.get_string()));
    }
    case ErrorKind::other:
      return std::make_exception_ptr(std::runtime_error(r.get_string()));
  }
  throw std::logic_error("RankJobs: bad error kind");
}

}  // namespace

RankJobs::RankJobs(RankGroup& ranks, WorkerPlacement placement, int nodes)
    : ranks_(ranks),
      placement_(placement),
      outbox_(std::size_t(nodes)),
      replayed_(std::size_t(nodes), 0) {}

bool RankJobs::local(const ComputeJob& job) const {
  // Only ComputeAwaiter submits jobs to the engine (Node::compute).
  return placement_.local(static_cast<const NodeJob&>(job).node());
}

Payload RankJobs::replay(NodeId node) {
  const auto n = std::size_t(node);
  if (replayed_[n] >= outbox_[n].size())
    throw std::logic_error("a replayed compute job encoded more messages than its owner's");
  return outbox_[n][replayed_[n]++];
}

Payload RankJobs::share(NodeId node, Payload p) {
  const int owner = placement_.owner(node);
  buffer_.clear();
  if (owner == placement_.rank()) {
    ByteWriter w(buffer_);
    write_payload(w, *p);
  }
  ranks_.broadcast(buffer_, owner);
  if (owner == placement_.rank()) return p;
  ByteReader r(buffer_);
  return read_payload(r);
}

void RankJobs::exchange(std::span<ComputeJob* const> jobs) {
  buffer_.clear();
  ByteWriter w(buffer_);
  for (ComputeJob* job : jobs) {
    if (!local(*job)) continue;
    const auto& j = static_cast<const NodeJob&>(*job);
    w.put(j.cost().flops);
    w.put(j.cost().seconds);
    write_error(w, j.error());
    std::vector<Payload>& sent = outbox_[std::size_t(j.node())];
    w.put(std::uint64_t(sent.size()));
    for (const Payload& p : sent) write_payload(w, *p);
    sent.clear();
  }
  const Gathered all = ranks_.all_gather(buffer_);
  std::vector<ByteReader> from;
  for (int r = 0; r < ranks_.size(); ++r) from.emplace_back(all.of(r));
  for (ComputeJob* job : jobs) {
    if (local(*job)) continue;
    auto& j = static_cast<NodeJob&>(*job);
    ByteReader& r = from[std::size_t(placement_.owner(j.node()))];
    models::ComputeCost cost;
    cost.flops = r.get<double>();
    cost.seconds = r.get<double>();
    std::exception_ptr error = read_error(r);
    const auto n = std::size_t(j.node());
    const auto count = r.get<std::uint64_t>();
    for (std::uint64_t m = 0; m < count; ++m) outbox_[n].push_back(read_payload(r));
    j.set_result(cost, std::move(error));
    replaying_ = true;
    j.replay();
    replaying_ = false;
    if (replayed_[n] != outbox_[n].size() && !j.error())
      throw std::logic_error("a replayed compute job encoded fewer messages than its owner's");
    outbox_[n].clear();
    replayed_[n] = 0;
  }
  for (std::size_t r = 0; r < from.size(); ++r)
    if (int(r) != placement_.rank() && !from[r].done())
      throw std::logic_error("RankJobs: results left over from a rank");
}

}  // namespace dlsim::sim
