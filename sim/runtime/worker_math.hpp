// One sender's math: batch gradients on its shard and the encoding of its messages,
// with the wall time of each counted. For models without math (`profile`) vectors are
// empty and a message of d coordinates costs the compressor's bits for d.
//
// Compression state lives per message stream: each stream id gets its own compressor
// instance (error feedback keeps one residual per stream) and its own random stream
// (seed, "compress", node) for stream 0, (seed, "compress/<id>", node) otherwise.
// Algorithms with one outgoing stream per sender use stream 0; e.g. a parameter
// server's uplink and downlink, or CHOCO's model differences, would use separate ids.
//
// Each stream (and the fp32 stream) also keeps a pool of payload buffers
// (sim/network/payload_pool.hpp): encode() re-encodes into a buffer that no transfer,
// mailbox or receiver holds any more, so steady state allocates nothing per message.
// Models without math keep no stream: their messages are the process's shared sized
// payloads (sim/network/sized_payload.hpp).
// Across ranks (rank_jobs.hpp) only the node's owner computes: elsewhere gradient() charges
// nothing (the owner's cost is used), decode() leaves `out` empty, and encode() returns
// the owner's message (RankJobs::route: shipped with the job's result, or broadcast when
// encoded on the engine thread).
// A WorkerMath belongs to one node and runs on one thread at a time (its compute job or
// the engine thread), which is what the pools require.
#pragma once

#include <memory>
#include <vector>

#include "models/data/partition.hpp"
#include "sim/network/payload_pool.hpp"
#include "sim/runtime/training.hpp"

namespace dlsim::sim {

class WorkerMath {
 public:
  /// `id` selects the shard (workers only) and the random streams.
  WorkerMath(Training& training, int id);

  /// g = ∇f_i(x; next batch); returns the cost to charge.
  models::ComputeCost gradient(const models::Vector& x, models::Vector& g);
  /// Encodes v with the scenario's compressor on message stream `stream`; `dimension`
  /// is the simulated length when the model has no math.
  Payload encode(const models::Vector& v, models::Index dimension, int stream = 0);
  /// Encodes a − b (CHOCO's x − x̂), computed into the stream's own buffer instead of a
  /// temporary vector, so no allocation per message (models/cpu/elementwise.hpp).
  Payload encode_difference(const models::Vector& a, const models::Vector& b,
                            models::Index dimension, int stream = 0);
  /// Decodes a payload of encode() into out (left empty for models without math).
  void decode(const Message& m, models::Vector& out);
  /// Whether add_decoded() works for the scenario's compressor (top-k: a message names few
  /// coordinates, and adding only those skips a dense decode and a dense sum).
  bool adds_decoded() const { return decoder_->adds_decoded(); }
  /// target += weight · decode(m), touching only the coordinates m carries; bit for bit the
  /// dense sum for a target without −0.0 (Compressor::add_decoded). Nothing for models
  /// without math.
  void add_decoded(const Message& m, double weight, models::Vector& target);
  /// The same for this sender's own message m, which must be the last that stream
  /// `stream` encoded: from what the stream's compressor kept while encoding it when it
  /// keeps that (Compressor::add_last_encoded: top-k), else by decoding m.
  void add_own_decoded(const Message& m, double weight, models::Vector& target, int stream = 0);

  /// For messages an algorithm sends exactly (a parameter server's model broadcast):
  /// fp32 whatever the scenario's compressor, 32 bits per coordinate.
  Payload encode_fp32(const models::Vector& v, models::Index dimension);
  void decode_fp32(const Message& m, models::Vector& out);

 private:
  models::Compressor& stream_compressor(int stream);
  Payload encode_here(const models::Vector& v, models::Index dimension, int stream);
  Payload encode_fp32_here(const models::Vector& v, models::Index dimension);
  void prefetch_upcoming_batch() const;

  // One message stream's state. A worker has one or two streams, found by a linear
  // search; one record instead of four maps keeps a million profile workers' state small.
  struct Stream {
    int id = 0;
    std::unique_ptr<models::Compressor> compressor;  // built on the first encoding with values
    std::unique_ptr<Rng> rng;                        // with the compressor (2.5 KB)
    PayloadPool pool;
    models::Vector input;  // encode_difference's a − b
  };
  // The record of stream `id`, added on first use. A reference to it lasts until the next
  // new stream is added, so none is held across another stream's first use.
  Stream& stream(int id);
  // stream(id), with its compressor and random stream built on first use.
  Stream& stream_with_compressor(int id);
  // encode_fp32's stream: only its pool is used (algorithms number theirs from 0).
  static constexpr int kFp32Stream = -1;

  Training& t_;
  int id_;
  std::vector<Stream> streams_;
  const models::Compressor* decoder_;  // Training::decoder(), shared by every worker
  models::Fp32Compressor fp32_;
  std::unique_ptr<models::BatchSampler> sampler_;
};

}  // namespace dlsim::sim
