// The centralized collectives (docs/algorithms.md §2, docs/design.md §7): in every round
// each of the n workers contributes one vector v_i and every worker gets back the same
//   mean = (1/n) Σ_i decode(encode_i(v_i))      (summed in worker order),
// so the replicas the workers keep (model, snapshot, momentum) stay identical. Three
// implementations, one per file: parameter_server.hpp (through node n), allgather.hpp
// (everyone to everyone), ring_allreduce.hpp (reduce-scatter + all-gather of n chunks).
// SGD and the SVRG family (sim/algorithms/) are each their local step plus one of these.
//
// A round has three phases, so that an algorithm decides where the math runs:
//   ep.contribute(v, format)   math only: encodes v (the ring keeps it for the hops);
//                              touches only this worker's state, so it may run inside the
//                              worker's compute job (sim/runtime/compute_job.hpp);
//   co_await ep.exchange()     the round's messages travel (engine thread; the ring also
//                              sums and re-encodes its chunks hop by hop here);
//   ep.result(out)             math only: out = the mean (decodes what arrived); may run
//                              in a compute job too.
// co_await ep.mean(v, format, out) runs the three in a row on the engine thread.
//
// Bits: every message is charged its payload's exact bits (the compressor's, or 32 per
// coordinate in fp32) plus the network's header, by the network as it travels; only the
// ring's exact shortcut charges its totals itself (ring_allreduce.hpp). Round r of a
// worker is its r-th exchange; its messages carry tag r (the ring: r·2(n−1) + step).
#pragma once

#include <cstdint>
#include <memory>

#include "sim/runtime/training.hpp"
#include "sim/runtime/worker_math.hpp"

namespace dlsim::sim {

/// How a round's uplink messages are encoded: with the scenario's compressor on one of
/// the sender's message streams (worker_math.hpp: each stream keeps its own error-feedback
/// residual and random draws), or exactly in fp32 (32 bits per coordinate, e.g. the SVRG
/// snapshot gradient). Every worker of a round uses the same format.
struct RoundFormat {
  bool fp32 = false;  // exact fp32 instead of the compressor
  int stream = 0;     // the sender's compressor stream (ignored for fp32)
};

/// Encodes / decodes one message in `format` with a node's WorkerMath.
Payload encode_in(WorkerMath& math, const models::Vector& v, models::Index dimension,
                  RoundFormat format);
void decode_in(WorkerMath& math, const Message& m, RoundFormat format, models::Vector& out);

/// One worker's end of a collective: its rounds, one after another.
class Endpoint {
 public:
  virtual ~Endpoint() = default;
  /// This round's contribution (math only; may run in the worker's compute job). v is
  /// empty for models without math: the messages then only have their simulated length.
  virtual void contribute(const models::Vector& v, RoundFormat format = {}) = 0;
  /// Sends and receives the round's messages.
  virtual Task<void> exchange() = 0;
  /// out = the round's mean (math only; may run in a compute job); empty without math.
  virtual void result(models::Vector& out) = 0;

  /// The three phases in a row.
  Task<void> mean(const models::Vector& v, RoundFormat format, models::Vector& out);
};

/// A collective of one run, shared by its workers (hold it by shared_ptr: its own
/// processes, the parameter server, keep it alive).
class Collective {
 public:
  virtual ~Collective() = default;
  /// Worker `id`'s endpoint; `math` (the worker's own, which must outlive the endpoint)
  /// encodes and decodes its messages.
  virtual std::unique_ptr<Endpoint> join(int id, WorkerMath& math) = 0;
  /// Spawns the collective's own processes (the parameter server); once, at launch.
  virtual void launch(Engine& /*engine*/) {}
  /// The workers to spawn: 0..k−1. All n, except when the ring's exact shortcut lets
  /// worker 0 stand for everyone (k = 1); worker 0 is then the one that deposits.
  virtual int workers_to_simulate() const = 0;
};

}  // namespace dlsim::sim
