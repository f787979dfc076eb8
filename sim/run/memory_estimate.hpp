// The estimate of a run's peak memory (resident set), made from the scenario and the
// sizes known so far, before the things it counts are allocated (docs/design.md §4,
// "Memory"). The memory guard (memory_guard.hpp) compares it with the memory available.
// Pieces, in bytes (8 per double; d = values per model vector, n workers, N nodes):
//   baseline      the process itself: code, libraries, allocator (measured: a 1-worker
//                 profile run peaks at about 8 MB);
//   data          every stored row of the training, test and eval sets: rows ·
//                 (features · 8 + 8), or (features · 4 + 8) with data.storage float32,
//                 or (features + 8) when the source kept byte codes (known once loaded),
//                 plus 8 per training row (the shards' row indices);
//   loading       the data while it is prepared (nothing else exists yet): the rows the
//                 source stored, plus the copies test_fraction (every training row, into
//                 the new training and test sets) or train_samples (the subsample) take
//                 while the loaded set still exists, · (features + 1) · 8 (float32
//                 storage is made in place, in the doubles' memory); none when the source
//                 stores the values as asked while it loads them (writes_storage);
//   model state   8d per model-sized vector: each simulated worker's own
//                 (StateMemory::worker_vectors of its kind, algorithm_registry.hpp, less
//                 the decoded message top-k never fills on static graphs), the
//                 collective's buffers (sim/collectives/collective_memory.hpp), the public
//                 copies of `gossip_memory` (bounded from the graph's degrees), the
//                 compressor's (2 for an error-feedback residual, 1 for per-tensor slices,
//                 its scratch_vectors), the server's, and the metrics recorder's 2 per model
//                 holder + 1 (3 per holder when rows are evaluated in the background: the
//                 row in evaluation keeps its own); plus two payload buffers of the encoded size
//                 per worker and the model's per-worker values (consensus starts: n · d);
//   thread scratch  the model's per-thread buffers (ModelOptions::memory: gathered batches,
//                 activations, im2col) on every thread that runs jobs or evaluation
//                 chunks (--threads; with one, the metrics thread takes over the
//                 evaluation's from the simulation's thread, and with a pool the thread
//                 evaluating a row is one of them, so it counts no more), plus the rows an
//                 evaluation widens to doubles (float32 storage: 500 rows at most; byte codes:
//                 1,024);
//   engine        per node 200 B (Node, ports, mailbox; measured: 186 B on the 65,536-
//                 node ring all-reduce) plus sizeof(Rng) = 2,504 B for its
//                 compute-jitter stream when compute.jitter > 0, per simulated worker
//                 process 6.9 KB (coroutine frames, WorkerMath's random streams, stream
//                 compressor and pools) or 1.6 KB for a model without values (no stream
//                 compressor, random stream or buffers) (measured: D-PSGD on a ring at
//                 100,000 and 300,000 workers, peak RSS per worker less the node, messages
//                 and model state: logistic with d = 9, 8.24 KB in all; a 1,000-parameter
//                 profile model, 2.37 KB, and 2.93 KB on a torus, whose two more messages
//                 per worker give the 280 B below), per
//                 message one round puts in flight 280 B (transfer slot, mailbox entry,
//                 fair-sharing flow), and per tensor per worker 420 B for a worker's own
//                 per-tensor compressor chain (its stream's; models without values build
//                 none, and every decoder chain, uplink and downlink, is one shared by all
//                 workers) (measured: CHOCO-SGD with per-tensor lpc on an mlp of 50 and
//                 100 tensors, peak RSS at 1,024 and 4,096 workers with and without
//                 per_tensor: 25.4 and 48.7 KB more per worker, which 420 B per tensor plus
//                 the per-tensor slice vector of the model state, 8d, gives within 3 %).
// The peak is baseline + max(loading, data + model state + thread scratch + engine).
// Across K MPI ranks it is one rank's: the per-worker model state (vectors, payload
// buffers, own values, gossip copies) of ⌈n/K⌉ workers; the data, engine, recorder and
// thread scratch as above, since every rank holds them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/objectives/registry.hpp"
#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// One part of the estimate: its name, size, how it was computed ("3 vectors x ..."),
/// and the scenario key to blame when it makes the run too large.
struct MemoryPiece {
  std::string name;
  double bytes = 0;
  std::string how;
  std::string key;
};

struct MemoryEstimate {
  std::vector<MemoryPiece> pieces;  // baseline, loading, data, model state, scratch, engine
  double bytes = 0;                 // the peak (rule above)
  double messages_per_round = 0;    // messages one round puts in flight (the engine piece's)

  /// The piece that dominates the peak (never the baseline).
  const MemoryPiece& largest() const;
};

/// What is known of the run's sizes when the estimate is made; unknown sizes are 0, so
/// an early estimate is a lower bound of the final one.
struct RunSizes {
  // The data as stored (0 without data).
  std::int64_t train_rows = 0;
  std::int64_t test_rows = 0;
  std::int64_t eval_rows = 0;
  std::int64_t features = 0;
  std::int64_t loading_rows = 0;  // rows held at once while the data is prepared
  bool loaded_as_stored = false;  // the source stored them as the run keeps them (not doubles)
  bool float32 = false;           // data.storage float32: 4 bytes per stored value
  bool coded = false;             // float64 kept as byte codes: 1 byte per stored value
  // The model.
  std::int64_t values = 0;      // d: doubles per model vector (0 without math)
  std::int64_t parameters = 0;  // coordinates per message
  std::int64_t tensors = 1;
  models::ModelMemory model;
  // The run.
  std::int64_t simulated_workers = 0;  // worker processes launched (AlgorithmInfo)
  int threads = 1;                     // --threads
  bool metrics_thread = false;         // metrics_in_background (runner.hpp)
  int ranks = 1;                       // MPI ranks sharing the run (per-rank estimate)
  std::int64_t rounds = 0;             // iterations, for time-varying graphs; 0: unknown
};

/// The estimate for scenario `s` with these sizes (throws nothing; huge sizes give huge
/// estimates, computed in doubles).
MemoryEstimate estimate_memory(const Scenario& s, const RunSizes& sizes);

/// Bytes as messages show them: "12.4 GB", "812 MB", "3.1 TB".
std::string format_bytes(double bytes);

}  // namespace dlsim::sim
