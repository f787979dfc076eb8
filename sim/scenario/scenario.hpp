// The typed form of a scenario file (docs/design.md §4), built from the resolved JSON
// (every default filled in, every value checked). Quantities are already in
// simulator units here; the JSON keeps what the user wrote.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/compress/factory.hpp"
#include "models/data/registry.hpp"
#include "models/objectives/registry.hpp"
#include "sim/engine/units.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::topo {
struct TopologyOptions;  // topologies/schedule.hpp
}  // namespace dlsim::topo

namespace dlsim::sim {

struct PartitionSpec {
  std::string kind = "iid";     // iid | dirichlet | shards | sorted
  double alpha = 0.5;           // dirichlet
  bool balanced = false;        // dirichlet: equal-size shards, as the AdaGossip reference
  std::int64_t per_worker = 2;  // shards
};

/// The `data` section: a registered source (models/data/registry.hpp), its typed options,
/// and the keys every source with data shares.
struct DataSpec {
  std::string source;
  /// The source's own options, read by the source; null for the source without data.
  std::shared_ptr<const models::DataOptions> options;
  // every source with data
  double test_fraction = 0.0;
  std::optional<std::int64_t> train_samples;      // subsample the training set
  std::string normalize = "none";                 // none | standard | minmax | channel
  std::vector<double> channel_mean, channel_std;  // normalize channel; empty: fitted
  std::string storage = "float64";                // float64 | float32 (FeatureMatrix)
  PartitionSpec partition;

  const models::DataSourceFacts& facts() const { return models::data_source_info(source).facts; }
  /// What the scenario says about the data before it is loaded.
  models::DataShape shape() const { return options ? options->shape() : models::DataShape{}; }
  template <class T>
  const T& options_as() const {
    const T* typed = dynamic_cast<const T*>(options.get());
    if (!typed) throw std::logic_error("data source " + source + " has no options of this type");
    return *typed;
  }
};

/// The `model` section: a registered kind (models/objectives/registry.hpp) and its typed
/// options, which build the objective.
struct ModelSpec {
  std::string kind;
  std::shared_ptr<const models::ModelOptions> options;

  const models::ModelFacts& facts() const { return models::model_info(kind).facts; }
  template <class T>
  const T& options_as() const {
    const T* typed = dynamic_cast<const T*>(options.get());
    if (!typed) throw std::logic_error("model " + kind + " has no options of this type");
    return *typed;
  }
};

/// A compressor, read once when the scenario is loaded: kind, error_feedback, per_tensor
/// and the kind's typed options (models/compress/factory.hpp).
using CompressorSpec = models::CompressorConfig;

struct AlgorithmSpec {
  std::string kind;  // a registered algorithm (sim/scenario/algorithm_registry.hpp)
  double step_size = 0.01;
  std::int64_t batch_size = 32;
  double momentum = 0.0;
  bool nesterov = false;
  double weight_decay = 0.0;
  std::string collective;  // centralized kinds only (sim/algorithms/centralized.hpp)
  CompressorSpec compressor;
  /// The kind's own options (sim/scenario/algorithm_registry.hpp); null for kinds without any.
  std::shared_ptr<const AlgorithmOptions> options;
  // Learning-rate schedule (sim/algorithms/lr_schedule.hpp): step decay and warm-up.
  struct Schedule {
    std::string kind = "constant";   // constant | step
    std::vector<double> milestones;  // step: increasing fractions of the run in (0, 1)
    double factor = 0.1;             // step: multiplier at each milestone, in (0, 1]
    double warmup = 0.0;             // < 1: fraction of the run; >= 1: iterations
  };
  Schedule schedule;

  /// What the registered kind declares about itself.
  const AlgorithmFacts& facts() const { return algorithm_info(kind).facts; }
  /// The kind's options as the type its registration reads them into.
  template <class T>
  const T& options_as() const {
    const T* typed = dynamic_cast<const T*>(options.get());
    if (!typed) throw std::logic_error("algorithm " + kind + " has no options of this type");
    return *typed;
  }
};

struct TopologySpec {
  std::string kind = "ring";           // a registered kind (topologies/registry.hpp)
  std::string weights = "metropolis";  // metropolis | uniform | max-degree
  /// The kind's own keys, read by the kind (TopologyInfo::read); null when it has none.
  std::shared_ptr<const topo::TopologyOptions> options;
};

struct NodeNicSpec {
  std::int64_t id = 0;
  std::optional<BitsPerSecond> egress;
  std::optional<BitsPerSecond> ingress;
};

struct LinkSpec {
  std::int64_t from = 0;
  std::int64_t to = 0;
  std::optional<SimTime> latency;
  std::optional<BitsPerSecond> bandwidth;
  std::optional<double> drop_probability;
};

// network.schedule: from `at` on, a link (from, to) or a node (node) gets new parameters.
struct NetworkChangeSpec {
  SimTime at{};
  std::optional<std::int64_t> from, to, node;
  std::optional<SimTime> latency;
  std::optional<BitsPerSecond> bandwidth, egress, ingress;
};

// network.down: link from -> to delivers nothing during [start, end).
struct LinkOutageSpec {
  std::int64_t from = 0, to = 0;
  SimTime start{}, end{};
};

// network.faults.fail: worker `node` stops at its first iteration boundary at or after
// `at` (decentralized algorithms only; sim/runtime/node_failures.hpp).
struct NodeFailureSpec {
  std::int64_t node = 0;
  SimTime at{};
};

struct NetworkSpec {
  SimTime latency = SimTime::from_ps(10'000'000);  // 10 us
  BitsPerSecond bandwidth = 10e9;
  std::string sharing = "fair";  // fair | fifo
  std::string model = "cm02";    // cm02 | lv08 (sim/network/network_model.hpp)
  Bits header = 0;
  BitsPerSecond nic_egress = 10e9;  // default: bandwidth
  BitsPerSecond nic_ingress = 10e9;
  std::vector<NodeNicSpec> nodes;
  std::vector<LinkSpec> links;
  double drop_probability = 0;              // network.faults (sim/network/faults.hpp)
  SimTime retransmit_timeout{};             // default: 3 round trips, 6 · latency
  std::vector<NetworkChangeSpec> schedule;  // in time order
  std::vector<LinkOutageSpec> down;
  std::vector<NodeFailureSpec> fail;  // node failures, in the order given
  SimTime fail_timeout{};             // default: 3 round trips, 6 · latency, at least 1us
};

struct ComputeSpec {
  Flops speed = 10e9;              // FLOP/s
  std::vector<double> per_worker;  // empty: every factor is 1
  double jitter = 0.0;             // lognormal sigma
};

struct StopSpec {
  std::optional<double> epochs;
  std::optional<std::int64_t> iterations;
  std::optional<SimTime> sim_time;
  std::optional<Bits> bits;
  std::optional<double> target_loss;
};

struct MetricsSpec {
  enum class Every { iterations, epochs, sim_time };
  Every every = Every::iterations;
  std::int64_t every_iterations = 10;
  double every_epochs = 0.0;
  SimTime every_sim_time{};
  bool test = true;
  std::optional<std::int64_t> eval_samples;  // train_loss on a fixed subsample
  bool per_worker = false;                   // also write workers.csv (decentralized)
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  std::int64_t workers = 4;
  DataSpec data;
  ModelSpec model;
  AlgorithmSpec algorithm;
  TopologySpec topology;
  NetworkSpec network;
  ComputeSpec compute;
  StopSpec stop;
  MetricsSpec metrics;
  std::string output_dir;
  bool save_model = false;  // output.save_model (model.npy)
  nlohmann::json resolved;  // the resolved JSON this was built from

  bool decentralized() const { return algorithm.facts().decentralized; }
};

}  // namespace dlsim::sim
