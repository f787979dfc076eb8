// The algorithm registry (spec/registry.hpp): every distributed training algorithm
// declares, from its own .cpp, its name, its keys, its facts, its cross-key checks and
// the function that launches its processes (sim/algorithms/kinds/). Scenario loading, the
// topology check, the failure check, the summary and the launcher only look algorithms up
// here; no other file lists algorithm kinds (docs/extending.md: adding an algorithm). It
// lives in the scenario layer, below the algorithms, because loading needs it
// (docs/design.md §1).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <memory>
#include <utility>

#include <nlohmann/json.hpp>

#include "models/compress/factory.hpp"
#include "models/objectives/objective.hpp"
#include "spec/key_table.hpp"
#include "spec/registry.hpp"

namespace dlsim::sim {

class Engine;     // sim/engine/engine.hpp
struct Scenario;  // sim/scenario/scenario.hpp
struct Training;  // sim/runtime/training.hpp

/// A kind's own options, read once from the resolved `algorithm` object (every key of the
/// kind present) by its registration's `read`; each kind derives its struct and its
/// process reads it with AlgorithmSpec::options_as<T>(). No JSON reaches the run.
struct AlgorithmOptions {
  virtual ~AlgorithmOptions() = default;
  /// Compressors the kind uses besides algorithm.compressor, each with the key that
  /// configures it (checked against the model's size before the run).
  virtual std::vector<std::pair<std::string, models::CompressorConfig>> compressors() const {
    return {};
  }
};

/// What the mixing weights of the gossip graph must be (docs/design.md §9).
enum class WeightsNeeded { none, column_stochastic, doubly_stochastic };

/// Gossip bookkeeping in model-sized vectors, reported as summary.json `gossip_memory`
/// (recounted from the graph schedule for the rounds run, sim/run/summary.cpp).
struct GossipMemory {
  enum class Layout {
    none,           // not reported
    public_copies,  // CHOCO: one copy pair (x̂_i, s_i) on a static graph; on a
                    // time-varying one a pair per neighbour ever sent to
    push_sum,       // compressed push-sum: a copy per outgoing stream (one on a static
                    // graph, one per out-neighbour ever sent to on a time-varying one) plus
                    // one per in-neighbour ever received from
  };
  Layout layout = Layout::none;
  int vectors_per_copy = 0;
};

/// What an algorithm keeps in memory, for the estimate of sim/run/memory_estimate.hpp, in
/// model-sized vectors (d doubles each): its own state only. The estimate adds the
/// public copies of `gossip_memory`, the collective's buffers, the compressor's state
/// (error-feedback residuals, scratch), the payload buffers and the metrics recorder's
/// copies. Counted from the code and checked against measured peak RSS (d = 10^5, 16
/// and 64 workers; tests/cli/memory_estimate_slow.sh checks every shipped scenario).
struct StateMemory {
  double worker_vectors = 4;  // each worker (model, gradient, momentum, a received vector)
  double server_vectors = 0;  // the parameter server's (collective parameter-server)
  /// Gradients over a worker's whole shard (SVRG's snapshot): the model's per-thread
  /// scratch then holds a shard's rows, not a batch's.
  bool shard_gradients = false;
  /// One of worker_vectors is a decoded message, which static graphs never fill when the
  /// compressor adds messages in place (Compressor::adds_decoded: top-k).
  bool decoded_vector = false;
};

/// The facts the rest of the simulator needs about an algorithm.
struct AlgorithmFacts {
  /// Decentralized: every worker keeps its own model and gossips on `topology`;
  /// centralized: one model, combined by `algorithm.collective`.
  bool decentralized = false;
  /// Decentralized only: which graphs it runs on (undirected graphs always).
  bool directed_graphs = false;
  /// When `directed_graphs` is false: the algorithm to suggest for directed graphs.
  std::string directed_alternative;
  WeightsNeeded weights = WeightsNeeded::none;
  /// network.faults.fail: whether neighbours can notice a failed node and go on.
  bool node_failures = false;
  /// false: messages must be sent uncompressed (compressor `none`).
  bool compressed_messages = true;
  int min_workers = 1;
  GossipMemory gossip_memory;
  StateMemory memory;
  /// The default of algorithm.compressor.kind and .error_feedback for this kind.
  std::string default_compressor = models::kUncompressed;
  bool default_error_feedback = false;
};

struct AlgorithmInfo {
  std::string name;
  std::string doc;  // one paragraph: paper and rule
  /// The keys this kind accepts besides the common ones of `algorithm`
  /// (sim/scenario/spec_algorithm.cpp).
  std::vector<spec::Key> keys;
  AlgorithmFacts facts;
  /// The kind's own options from the resolved `algorithm` object (throw InputError at
  /// `algorithm.<key>`); null for kinds without options of their own.
  std::function<std::shared_ptr<const AlgorithmOptions>(const nlohmann::json& algorithm)> read;
  /// Cross-key checks of this kind (throw InputError); run after the common ones.
  std::function<void(const Scenario&)> check;
  /// Spawns the processes of one run.
  std::function<void(Engine&, Training&)> launch;
  /// How many worker processes launch() spawns (the memory estimate counts their
  /// state); null: every worker. SGD over ring all-reduce may simulate one for all
  /// (sim/collectives/ring_allreduce.hpp).
  std::function<int(const Scenario&, const models::Objective&)> simulated_workers;
};

using AlgorithmRegistry = spec::Registry<AlgorithmInfo>;
using AlgorithmRegistration = spec::Registration<AlgorithmInfo>;

/// The registered algorithm `kind` (a programming error when unknown).
inline const AlgorithmInfo& algorithm_info(const std::string& kind) {
  return AlgorithmRegistry::instance().at(kind);
}

}  // namespace dlsim::sim
