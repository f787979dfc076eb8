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
#include "models/objectives/cnn/layer_list.hpp"
#include "sim/engine/units.hpp"
#include "sim/scenario/algorithm_registry.hpp"

namespace dlsim::topo {
struct TopologyOptions;  // topologies/schedule.hpp
}  // namespace dlsim::topo

namespace dlsim::sim {

struct PartitionSpec {
  std::string kind = "iid";     // iid | dirichlet | shards | sorted
  double alpha = 0.5;           // dirichlet
  std::int64_t per_worker = 2;  // shards
};

struct DataSpec {
  // synthetic-regression | synthetic-classification | csv | libsvm | fashion-mnist | none
  std::string source = "synthetic-regression";
  // synthetic-regression (preset: "none" | "yearpredictionmsd")
  std::string preset = "none";
  std::int64_t samples = 1000;
  std::int64_t features = 20;
  double noise = 0.1;
  double condition = 1.0;
  // synthetic-classification (also samples, features)
  std::int64_t classes = 2;
  double separation = 2.0;
  // csv, libsvm, fashion-mnist (a directory)
  std::string path;
  std::string test_path;  // empty: none
  std::string label_column = "label";
  // every source with data
  double test_fraction = 0.0;
  std::optional<std::int64_t> train_samples;  // subsample the training set
  std::string normalize = "none";             // none | standard | minmax
  PartitionSpec partition;
};

struct InitSpec {
  std::string kind = "zeros";  // zeros | normal | he | xavier
  double std = 0.01;
};

struct ModelSpec {
  // least-squares | logistic | softmax | mlp | lenet5 | resnet | cnn | consensus | profile
  std::string kind = "least-squares";
  double l2 = 0.0;
  double l1 = 0.0;
  bool bias = true;
  InitSpec init;
  // logistic
  std::vector<double> positive_classes;
  // mlp
  std::vector<std::int64_t> hidden;
  std::string activation = "relu";  // relu | tanh (mlp, lenet5)
  // lenet5, resnet (models/objectives/cnn)
  std::string pooling = "max";                 // lenet5: max | average
  std::int64_t depth = 20;                     // resnet: 6n + 2
  double width = 1.0;                          // resnet: channel multiplier
  std::string precision = "float";             // float | double
  std::vector<models::cnn::LayerSpec> layers;  // cnn (checked while reading)
  // consensus
  std::int64_t dimension = 0;
  // profile
  std::int64_t parameters = 0;
  SimTime compute_time{};
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
  nlohmann::json resolved;  // the resolved JSON this was built from

  bool decentralized() const { return algorithm.facts().decentralized; }
};

}  // namespace dlsim::sim
