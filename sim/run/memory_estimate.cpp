// estimate_memory (memory_estimate.hpp): the pieces of a run's peak memory.
#include "sim/run/memory_estimate.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "models/compress/factory.hpp"
#include "sim/algorithms/algorithms.hpp"
#include "sim/collectives/collective_memory.hpp"
#include "sim/engine/rng.hpp"

namespace dlsim::sim {

namespace {

// Measured constants (memory_estimate.hpp says how).
constexpr double kBaselineBytes = 7.9e6;
constexpr double kNodeBytes = 200;            // Node, ports, mailbox
constexpr double kStreamBytes = sizeof(Rng);  // one random stream (2,504 bytes)
constexpr double kProcessBytes = 6.9e3;       // with its stream compressor and random stream
constexpr double kProcessWithoutValuesBytes = 1.6e3;  // a model without values: neither
constexpr double kMessageBytes = 280;
constexpr double kTensorChainBytes = 420;  // per tensor per worker with values: stream compressor
constexpr double kPayloadBuffers = 2;      // per worker: one in flight, one being encoded
constexpr double kRecorderVectors = 2;     // per model holder: pending and latest deposit
constexpr double kConvertedRows = 500;     // float32 storage: rows converted at once, at most

std::string count(double x) {
  // Whole counts in full ("1000000 nodes", not "1e+06 nodes"); others to 6 digits.
  if (x == std::floor(x) && std::abs(x) < 1e15) return fmt::format("{:.0f}", x);
  return fmt::format("{:.6g}", x);
}

// The key to blame for the data: the source's size key, else its file, else `data`.
std::string data_key(const Scenario& s) {
  if (!s.data.options) return "data";
  if (s.data.shape().samples) return "data.samples";
  const auto files = s.data.options->paths();
  return files.empty() ? "data" : "data." + files.front().first;
}

// Public gossip copies over all workers, in model-sized vectors: one copy (CHOCO: x̂, s)
// on a static graph, push-sum one per outgoing stream plus one per in-neighbour; on a
// time-varying graph one per neighbour met in the rounds run, bounded by the degrees
// (summary.json gossip_memory counts them exactly after the run).
double gossip_vectors(const Scenario& s, const topo::GraphSchedule& graph, std::int64_t rounds) {
  const GossipMemory& memory = s.algorithm.facts().gossip_memory;
  if (memory.layout == GossipMemory::Layout::none) return 0;
  const bool push_sum = memory.layout == GossipMemory::Layout::push_sum;
  const double others = double(graph.nodes() - 1);
  double distinct = double(graph.period() > 0 ? graph.period() : graph.nodes());
  if (rounds > 0) distinct = std::min(distinct, double(rounds));
  double copies = 0;
  for (int i = 0; i < graph.nodes(); ++i) {
    const topo::Neighborhood nb = graph.neighborhood(i, 0);
    const double out = double(nb.out.size()), in = double(nb.in.size());
    if (!graph.time_varying())
      copies += push_sum ? 1 + in : 1;
    else
      copies += std::min(others, distinct * out) + (push_sum ? std::min(others, distinct * in) : 0);
  }
  return copies * memory.vectors_per_copy;
}

// Messages one round puts in flight: every arc of a gossip round, or the collective's.
double messages_per_round(const Scenario& s, const topo::GraphSchedule* graph,
                          std::int64_t simulated) {
  if (graph) {
    return double(graph->round(0)->out.targets.size());  // round 0's arcs
  }
  if (simulated < 2) return 0;  // a lone process (ring all-reduce's shortcut) sends nothing
  return collective_memory(s.algorithm.collective, double(s.workers)).messages_per_round;
}

// One stored row as the estimate's texts show it: "(784 features x 1 byte (codes) + an
// 8-byte label)", and the doubles' "785 values x 8 bytes" (the label among them).
std::string row_text(const RunSizes& z) {
  return fmt::format("({} features x {} + an 8-byte label)", z.features,
                     z.coded     ? "1 byte (codes)"
                     : z.float32 ? "4 bytes"
                                 : "8 bytes");
}
std::string double_row_text(const RunSizes& z) {
  return fmt::format("{} values x 8 bytes", z.features + 1);
}

}  // namespace

std::string format_bytes(double bytes) {
  if (bytes >= 1e12) return fmt::format("{:.3g} TB", bytes / 1e12);
  if (bytes >= 1e9) return fmt::format("{:.3g} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.3g} MB", bytes / 1e6);
  return fmt::format("{:.3g} kB", bytes / 1e3);
}

const MemoryPiece& MemoryEstimate::largest() const {
  const MemoryPiece* loading = nullptr;
  const MemoryPiece* best = nullptr;
  double running = 0;
  for (const MemoryPiece& p : pieces) {
    if (p.name == "baseline") continue;
    if (p.name == "loading") {
      loading = &p;
      continue;
    }
    running += p.bytes;
    if (!best || p.bytes > best->bytes) best = &p;
  }
  if (loading && loading->bytes > running) return *loading;
  return best ? *best : pieces.front();
}

MemoryEstimate estimate_memory(const Scenario& s, const RunSizes& z) {
  const AlgorithmFacts& facts = s.algorithm.facts();
  const double n = double(s.workers), nodes = double(node_count(s));
  const double simulated = double(z.simulated_workers);
  const double d = double(z.values);
  const bool server = !facts.decentralized && s.algorithm.collective == "parameter-server";

  MemoryEstimate e;
  e.pieces.push_back({"baseline", kBaselineBytes, "the process itself (measured)", "workers"});

  // The data, as stored and while it is prepared.
  const double row_bytes = 8 * (double(z.features) + 1);
  const double value_bytes = z.coded ? 1 : z.float32 ? 4 : 8;
  const double stored_row_bytes = value_bytes * double(z.features) + 8;  // and the label
  const double rows = double(z.train_rows + z.test_rows + z.eval_rows);
  // (float32 storage is made in place, in the doubles' memory: no more than loading.)
  // A source that stores as it loads holds its rows, and their copies, at the stored size.
  const double loading =
      double(z.loading_rows) * (z.loaded_as_stored ? stored_row_bytes : row_bytes);
  const bool narrow = z.coded || z.float32;  // stored narrower than doubles
  e.pieces.push_back({"loading", loading,
                      fmt::format("{} rows held while loading x {}", z.loading_rows,
                                  z.loaded_as_stored ? row_text(z) : double_row_text(z)),
                      data_key(s)});
  e.pieces.push_back(
      {"data", rows * stored_row_bytes + 8 * double(z.train_rows),
       fmt::format("{} rows x {}", count(rows), narrow ? row_text(z) : double_row_text(z)),
       data_key(s)});

  // Model-sized vectors.
  std::shared_ptr<const topo::GraphSchedule> graph;
  if (facts.decentralized) graph = communication_graph(s);
  const CompressorSpec& c = s.algorithm.compressor;
  double per_worker = facts.memory.worker_vectors + (c.error_feedback ? 2 : 0) +
                      (c.options ? c.options->scratch_vectors(z.parameters) : 0) +
                      (c.per_tensor && z.tensors > 1 ? 1 : 0);
  // One compressor, for its message size and whether it adds messages in place (models
  // without math send none).
  const auto compressor =
      z.values > 0 && z.parameters > 0 ? models::build_compressor(c, {z.parameters}) : nullptr;
  if (facts.memory.decoded_vector && graph && !graph->time_varying() && compressor &&
      compressor->adds_decoded())
    per_worker -= 1;
  if (!facts.decentralized)
    per_worker += collective_memory(s.algorithm.collective, n).worker_vectors;
  const double holders = facts.decentralized ? n : 1;
  // Across K ranks (docs/design.md §6) a rank keeps the state of its own block of
  // workers only: the largest block, ⌈n/K⌉, is estimated (rank 0 also has the server).
  const double ranks = double(std::max(z.ranks, 1));
  const auto per_rank = [&](double all) { return ranks > 1 ? std::ceil(all / ranks) : all; };
  const double local = per_rank(simulated), local_n = per_rank(n);
  const double vectors = local * per_worker + (server ? facts.memory.server_vectors : 0) +
                         (graph ? per_rank(gossip_vectors(s, *graph, z.rounds)) : 0) +
                         holders * (kRecorderVectors + (z.metrics_thread ? 1 : 0)) + 1;
  // Encoded bytes of one message.
  const double payload = compressor ? double(compressor->bits_for(z.parameters)) / 8 : 0;
  const double buffers = (local + (server ? 1 : 0)) * kPayloadBuffers;
  const double state = 8 * d * vectors + 8 * local_n * z.model.worker_values + buffers * payload;
  e.pieces.push_back(
      {"model state", state,
       fmt::format("{} model-sized vectors x {} values x 8 bytes, {} payload buffers of {}{}{}",
                   count(vectors), z.values, count(buffers), format_bytes(payload),
                   z.model.worker_values > 0
                       ? fmt::format(", {} workers x {} own values",
                                     z.ranks > 1 ? count(local_n) : std::to_string(s.workers),
                                     count(z.model.worker_values))
                       : "",
                   z.ranks > 1
                       ? fmt::format(" (per rank: {} of {} workers)", count(local_n), s.workers)
                       : ""),
       "workers"});

  // Per-thread scratch: every thread that runs jobs or evaluation chunks keeps its own.
  // float32 storage adds the block an evaluation converts to doubles: at most the 500
  // rows of a convolutional network's evaluation block (dense classifiers convert 64);
  // byte codes the rows the model widens at once (ModelMemory::coded_rows_widened: an
  // evaluation block, or four inside a dense classifier's AVX-512 product).
  // With metrics in the background and one thread the evaluation's scratch moves to the
  // metrics thread and the simulation's thread keeps only its gradients'; with a pool a row's
  // chunks are evaluated by its threads: as many threads' worth as inline either way.
  const double threads = double(std::max(z.threads, 1));
  const double per_thread = z.model.thread_bytes +
                            (z.float32 ? 8.0 * kConvertedRows * double(z.features) : 0.0) +
                            (z.coded ? 8.0 * z.model.coded_rows_widened * double(z.features) : 0.0);
  e.pieces.push_back({"thread scratch", threads * per_thread,
                      fmt::format("{} threads x {} bytes", count(threads), count(per_thread)),
                      "algorithm.batch_size"});

  // The engine's per-node, per-process and per-message state.
  const double messages = messages_per_round(s, graph.get(), z.simulated_workers);
  e.messages_per_round = messages;
  // A node keeps a compute-jitter stream only when there is jitter; a model without
  // values builds no per-stream compressor (only the decoder's chain) and no stream.
  const bool math = z.values > 0;
  const double node = kNodeBytes + (s.compute.jitter > 0 ? kStreamBytes : 0);
  const double process = math ? kProcessBytes : kProcessWithoutValuesBytes;
  // Decoders are shared by all workers (uplink and downlink alike): only a worker's own
  // stream compressor is per worker, and models without values build none.
  const double chains =
      c.per_tensor && z.tensors > 1 && math ? double(z.tensors) * kTensorChainBytes : 0;
  e.pieces.push_back({"engine",
                      nodes * node + simulated * (process + chains) + messages * kMessageBytes,
                      fmt::format("{} nodes, {} worker processes, {} messages in flight",
                                  count(nodes), count(simulated), count(messages)),
                      "workers"});

  double running = 0;
  for (const MemoryPiece& p : e.pieces)
    if (p.name != "baseline" && p.name != "loading") running += p.bytes;
  e.bytes = kBaselineBytes + std::max(loading, running);
  return e;
}

}  // namespace dlsim::sim
