// The typed form of a scenario file (DESIGN.md §4), built from the resolved JSON
// (every default filled in, every value checked). Quantities are already in
// simulator units here; the JSON keeps what the user wrote.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/engine/units.hpp"

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
  // least-squares | logistic | softmax | mlp | consensus | profile
  std::string kind = "least-squares";
  double l2 = 0.0;
  double l1 = 0.0;
  bool bias = true;
  InitSpec init;
  // logistic
  std::vector<double> positive_classes;
  // mlp
  std::vector<std::int64_t> hidden;
  std::string activation = "relu";  // relu | tanh
  // consensus
  std::int64_t dimension = 0;
  // profile
  std::int64_t parameters = 0;
  SimTime compute_time{};
};

struct CompressorSpec {
  std::string kind = "none";
  bool error_feedback = false;
  nlohmann::json options = nlohmann::json::object();  // the resolved compressor object
};

struct AlgorithmSpec {
  std::string kind = "sgd";  // sgd | dpsgd
  double step_size = 0.01;
  std::int64_t batch_size = 32;
  double momentum = 0.0;
  bool nesterov = false;
  double weight_decay = 0.0;
  std::string collective = "parameter-server";  // centralized only
  CompressorSpec compressor;
};

struct TopologySpec {
  std::string kind = "ring";           // see topo::topology_kinds()
  std::vector<std::int64_t> dims;      // torus, grid
  std::int64_t degree = 3;             // random-regular
  double p = 0.1;                      // erdos-renyi, small-world
  std::int64_t k = 4;                  // small-world
  std::string path;                    // edge-list
  std::string weights = "metropolis";  // metropolis | uniform | max-degree
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

  bool decentralized() const { return algorithm.kind == "dpsgd"; }
};

}  // namespace dlsim::sim
