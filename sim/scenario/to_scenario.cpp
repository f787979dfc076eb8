// to_scenario: the typed Scenario from a resolved document, plus the checks that
// involve several keys (DESIGN.md §4): torus size, per-worker lists, node and link
// ids, which collectives and compressors go together, data versus model.
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <utility>

#include "models/compress/factory.hpp"
#include "sim/scenario/failure_check.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/quantity.hpp"
#include "sim/scenario/topology_build.hpp"

namespace dlsim::sim {
namespace {

using messages::index_path;
using nlohmann::json;

Bits to_bits(const json& value) {
  return Bits(std::llround(parse_size_bits(value)));
}

void read_data(const json& j, DataSpec& d) {
  d.source = j.at("source").get<std::string>();
  if (d.source == "none") return;
  if (d.source == "synthetic-regression") {
    d.preset = j.at("preset").get<std::string>();
    d.samples = j.at("samples").get<std::int64_t>();
    d.features = j.at("features").get<std::int64_t>();
    d.noise = j.at("noise").get<double>();
    d.condition = j.at("condition").get<double>();
  } else if (d.source == "synthetic-classification") {
    d.samples = j.at("samples").get<std::int64_t>();
    d.features = j.at("features").get<std::int64_t>();
    d.classes = j.at("classes").get<std::int64_t>();
    d.separation = j.at("separation").get<double>();
  } else if (d.source == "csv") {
    d.path = j.at("path").get<std::string>();
    d.test_path = j.at("test_path").get<std::string>();
    d.label_column = j.at("label_column").get<std::string>();
  } else if (d.source == "libsvm") {
    d.path = j.at("path").get<std::string>();
    d.test_path = j.at("test_path").get<std::string>();
  } else if (d.source == "fashion-mnist") {
    d.path = j.at("path").get<std::string>();
  }
  d.test_fraction = j.at("test_fraction").get<double>();
  if (j.contains("train_samples")) d.train_samples = j.at("train_samples").get<std::int64_t>();
  d.normalize = j.at("normalize").get<std::string>();
  const json& partition = j.at("partition");
  d.partition.kind = partition.at("kind").get<std::string>();
  if (partition.contains("alpha")) d.partition.alpha = partition.at("alpha").get<double>();
  if (partition.contains("per_worker"))
    d.partition.per_worker = partition.at("per_worker").get<std::int64_t>();
}

void read_model(const json& j, ModelSpec& m) {
  m.kind = j.at("kind").get<std::string>();
  if (m.kind == "profile") {
    m.parameters = j.at("parameters").get<std::int64_t>();
    m.compute_time = parse_time(j.at("compute_time"));
    return;
  }
  if (m.kind == "consensus") {
    m.dimension = j.at("dimension").get<std::int64_t>();
    return;
  }
  m.l2 = j.at("l2").get<double>();
  m.l1 = j.at("l1").get<double>();
  if (m.kind == "lenet5" || m.kind == "resnet") {  // convolutional: always with biases
    m.init.kind = j.at("init").at("kind").get<std::string>();
    if (m.init.kind == "normal") m.init.std = j.at("init").at("std").get<double>();
    m.precision = j.at("precision").get<std::string>();
    if (m.kind == "lenet5") {
      m.activation = j.at("activation").get<std::string>();
      m.pooling = j.at("pooling").get<std::string>();
    } else {
      m.depth = j.at("depth").get<std::int64_t>();
      m.width = j.at("width").get<double>();
      if (m.depth < 8 || (m.depth - 2) % 6 != 0)
        throw InputError("model.depth", "resnet depth must be 6n + 2 (8, 14, 20, 32, ...), got " +
                                            std::to_string(m.depth));
    }
    return;
  }
  m.bias = j.at("bias").get<bool>();
  m.init.kind = j.at("init").at("kind").get<std::string>();
  if (m.init.kind == "normal") m.init.std = j.at("init").at("std").get<double>();
  if (m.kind == "logistic")
    m.positive_classes = j.at("positive_classes").get<std::vector<double>>();
  if (m.kind == "mlp") {
    m.hidden = j.at("hidden").get<std::vector<std::int64_t>>();
    m.activation = j.at("activation").get<std::string>();
  }
}

void read_algorithm(const json& j, AlgorithmSpec& a) {
  a.kind = j.at("kind").get<std::string>();
  a.step_size = j.at("step_size").get<double>();
  a.batch_size = j.at("batch_size").get<std::int64_t>();
  a.momentum = j.at("momentum").get<double>();
  a.nesterov = j.at("nesterov").get<bool>();
  a.weight_decay = j.at("weight_decay").get<double>();
  if (j.contains("collective")) a.collective = j.at("collective").get<std::string>();
  a.compressor.kind = j.at("compressor").at("kind").get<std::string>();
  a.compressor.error_feedback = j.at("compressor").at("error_feedback").get<bool>();
  a.compressor.options = j.at("compressor");
  // the SVRG family (keys present only for its kinds)
  if (j.contains("epoch_length")) a.epoch_length = j.at("epoch_length").get<std::int64_t>();
  if (j.contains("snapshot")) a.snapshot = j.at("snapshot").get<std::string>();
  if (j.contains("quantize")) a.quantize = j.at("quantize").get<std::string>();
  if (j.contains("quantize_snapshot")) a.quantize_snapshot = j.at("quantize_snapshot").get<bool>();
  if (j.contains("downlink_compressor")) {
    const json& down = j.at("downlink_compressor");
    a.downlink_compressor = CompressorSpec{down.at("kind").get<std::string>(),
                                           down.at("error_feedback").get<bool>(), down};
  }
  if (j.contains("sigma")) a.sigma = j.at("sigma").get<double>();
  if (j.contains("L")) a.L = j.at("L").get<double>();
  if (j.contains("option")) a.option = j.at("option").get<std::string>();
  if (j.contains("double_sampling")) a.double_sampling = j.at("double_sampling").get<bool>();
  // decentralized gossip (keys present only for their kinds)
  if (j.contains("consensus_step")) a.consensus_step = j.at("consensus_step").get<double>();
  if (j.contains("beta")) a.beta = j.at("beta").get<double>();
  if (j.contains("epsilon")) a.epsilon = j.at("epsilon").get<double>();
  if (j.contains("order")) a.order = j.at("order").get<std::string>();
  if (j.contains("schedule")) {  // absent: constant
    const json& schedule = j.at("schedule");
    a.schedule.kind = schedule.at("kind").get<std::string>();
    a.schedule.warmup = schedule.at("warmup").get<double>();
    if (schedule.contains("milestones"))
      a.schedule.milestones = schedule.at("milestones").get<std::vector<double>>();
    if (schedule.contains("factor")) a.schedule.factor = schedule.at("factor").get<double>();
  }
}

void read_network(const json& j, NetworkSpec& n) {
  n.latency = parse_time(j.at("latency"));
  n.bandwidth = parse_rate(j.at("bandwidth"));
  n.sharing = j.at("sharing").get<std::string>();
  n.header = to_bits(j.at("header"));
  n.nic_egress = parse_rate(j.at("nic").at("egress"));
  n.nic_ingress = parse_rate(j.at("nic").at("ingress"));
  for (const json& node : j.at("nodes")) {
    NodeNicSpec s;
    s.id = node.at("id").get<std::int64_t>();
    if (node.contains("egress")) s.egress = parse_rate(node.at("egress"));
    if (node.contains("ingress")) s.ingress = parse_rate(node.at("ingress"));
    n.nodes.push_back(s);
  }
  for (const json& link : j.at("links")) {
    LinkSpec s;
    s.from = link.at("from").get<std::int64_t>();
    s.to = link.at("to").get<std::int64_t>();
    if (link.contains("latency")) s.latency = parse_time(link.at("latency"));
    if (link.contains("bandwidth")) s.bandwidth = parse_rate(link.at("bandwidth"));
    if (link.contains("drop_probability"))
      s.drop_probability = link.at("drop_probability").get<double>();
    n.links.push_back(s);
  }
  const json& faults = j.at("faults");
  n.drop_probability = faults.at("drop_probability").get<double>();
  n.retransmit_timeout =
      faults.contains("retransmit_timeout")
          ? parse_time(faults.at("retransmit_timeout"))
          : SimTime::from_ps(std::clamp(n.latency.ps, std::int64_t(0), SimTime::max().ps / 6) * 6);
  n.retransmit_timeout =
      std::max(n.retransmit_timeout, SimTime::from_ps(SimTime::kPerSecond / 1'000'000));
  for (const json& entry : j.at("schedule")) {
    NetworkChangeSpec c;
    c.at = parse_time(entry.at("at"));
    if (entry.contains("from")) c.from = entry.at("from").get<std::int64_t>();
    if (entry.contains("to")) c.to = entry.at("to").get<std::int64_t>();
    if (entry.contains("node")) c.node = entry.at("node").get<std::int64_t>();
    if (entry.contains("latency")) c.latency = parse_time(entry.at("latency"));
    if (entry.contains("bandwidth")) c.bandwidth = parse_rate(entry.at("bandwidth"));
    if (entry.contains("egress")) c.egress = parse_rate(entry.at("egress"));
    if (entry.contains("ingress")) c.ingress = parse_rate(entry.at("ingress"));
    n.schedule.push_back(c);
  }
  const SimTime three_round_trips = std::max(
      SimTime::from_ps(std::clamp(n.latency.ps, std::int64_t(0), SimTime::max().ps / 6) * 6),
      SimTime::from_ps(SimTime::kPerSecond / 1'000'000));
  n.fail_timeout =
      faults.contains("fail_timeout") ? parse_time(faults.at("fail_timeout")) : three_round_trips;
  if (faults.contains("fail")) {
    for (const json& entry : faults.at("fail"))
      n.fail.push_back({entry.at("node").get<std::int64_t>(), parse_time(entry.at("at"))});
  }
  for (const json& entry : j.at("down")) {
    LinkOutageSpec o;
    o.from = entry.at("from").get<std::int64_t>();
    o.to = entry.at("to").get<std::int64_t>();
    o.start = parse_time(entry.at("start"));
    o.end = parse_time(entry.at("end"));
    n.down.push_back(o);
  }
}

void read_stop(const json& j, StopSpec& s) {
  if (j.contains("epochs")) s.epochs = j.at("epochs").get<double>();
  if (j.contains("iterations")) s.iterations = j.at("iterations").get<std::int64_t>();
  if (j.contains("sim_time")) s.sim_time = parse_time(j.at("sim_time"));
  if (j.contains("bits")) s.bits = to_bits(j.at("bits"));
  if (j.contains("target_loss")) s.target_loss = j.at("target_loss").get<double>();
}

void read_metrics(const json& j, MetricsSpec& m) {
  const json& every = j.at("every");
  if (every.contains("iterations")) {
    m.every = MetricsSpec::Every::iterations;
    m.every_iterations = every.at("iterations").get<std::int64_t>();
  } else if (every.contains("epochs")) {
    m.every = MetricsSpec::Every::epochs;
    m.every_epochs = every.at("epochs").get<double>();
  } else {
    m.every = MetricsSpec::Every::sim_time;
    m.every_sim_time = parse_time(every.at("sim_time"));
  }
  m.test = j.at("test").get<bool>();
  if (j.contains("eval_samples")) m.eval_samples = j.at("eval_samples").get<std::int64_t>();
  m.per_worker = j.at("per_worker").get<bool>();
}

Scenario read(const json& j) {
  Scenario s;
  s.name = j.at("name").get<std::string>();
  s.description = j.at("description").get<std::string>();
  s.seed = j.at("seed").get<std::uint64_t>();
  s.workers = j.at("workers").get<std::int64_t>();
  read_data(j.at("data"), s.data);
  read_model(j.at("model"), s.model);
  read_algorithm(j.at("algorithm"), s.algorithm);
  const json& topology = j.at("topology");
  s.topology.kind = topology.at("kind").get<std::string>();
  s.topology.weights = topology.at("weights").get<std::string>();
  if (topology.contains("dims"))
    s.topology.dims = topology.at("dims").get<std::vector<std::int64_t>>();
  if (topology.contains("degree")) s.topology.degree = topology.at("degree").get<std::int64_t>();
  if (topology.contains("p")) s.topology.p = topology.at("p").get<double>();
  if (topology.contains("k")) s.topology.k = topology.at("k").get<std::int64_t>();
  if (topology.contains("path")) s.topology.path = topology.at("path").get<std::string>();
  read_network(j.at("network"), s.network);
  s.compute.speed = parse_flops(j.at("compute").at("speed"));
  s.compute.per_worker = j.at("compute").at("per_worker").get<std::vector<double>>();
  s.compute.jitter = j.at("compute").at("jitter").get<double>();
  read_stop(j.at("stop"), s.stop);
  read_metrics(j.at("metrics"), s.metrics);
  s.output_dir = j.at("output").at("dir").get<std::string>();
  return s;
}

// ---------------------------------------------------------------- combinations

// Lattice sizes here (with indexed paths); everything else about the graph, and
// whether its weights suit the algorithm, in topology_build.cpp.
void check_topology(const Scenario& s) {
  if (s.decentralized()) check_topology_for_algorithm(s);
}

void check_lattice_dims(const Scenario& s) {
  if (s.topology.kind != "torus" && s.topology.kind != "grid") return;
  const std::int64_t smallest = 2;  // torus and grid alike
  std::int64_t product = 1;
  bool too_large = false;
  for (std::size_t i = 0; i < s.topology.dims.size(); ++i) {
    const std::int64_t d = s.topology.dims[i];
    if (d < smallest) {
      throw InputError(index_path("topology.dims", i),
                       "must be >= " + std::to_string(smallest) + ", got " + std::to_string(d));
    }
    if (too_large || d > s.workers / product) {
      too_large = true;  // avoids overflow; the product already exceeds workers
    } else {
      product *= d;
    }
  }
  if (too_large || product != s.workers) {
    throw InputError(
        "topology.dims",
        "product of dims must equal workers (" + std::to_string(s.workers) + "), got " +
            messages::shown(json(s.topology.dims)) + " = " +
            (too_large ? "more than " + std::to_string(s.workers) : std::to_string(product)));
  }
}

void check_compute(const Scenario& s) {
  const auto& factors = s.compute.per_worker;
  if (!factors.empty() && std::int64_t(factors.size()) != s.workers) {
    throw InputError("compute.per_worker", "must have one entry per worker (" +
                                               std::to_string(s.workers) + "), got " +
                                               std::to_string(factors.size()));
  }
  for (std::size_t i = 0; i < factors.size(); ++i) {
    if (!(factors[i] > 0) || !std::isfinite(factors[i])) {
      throw InputError(index_path("compute.per_worker", i),
                       "must be > 0, got " + messages::number_text(factors[i]));
    }
  }
}

// Node ids run over the workers, plus the parameter server (id = workers) if any.
void check_node_id(const Scenario& s, std::int64_t id, const std::string& path) {
  const bool has_server = !s.decentralized() && s.algorithm.collective == "parameter-server";
  const std::int64_t last = has_server ? s.workers : s.workers - 1;
  if (id >= 0 && id <= last) return;
  std::string what =
      "must be a node id in [0, " + std::to_string(last) + "], got " + std::to_string(id);
  if (id == s.workers)
    what += " (the parameter server exists only with collective parameter-server)";
  throw InputError(path, what);
}

// network.schedule and network.down (sim/network/faults.hpp): each change names either a
// link (from and to, with latency/bandwidth) or a node (with egress/ingress); entries are
// in time order; an outage ends after it starts.
void check_network_faults(const Scenario& s) {
  const auto& schedule = s.network.schedule;
  for (std::size_t i = 0; i < schedule.size(); ++i) {
    const std::string path = index_path("network.schedule", i);
    const NetworkChangeSpec& c = schedule[i];
    if (i > 0 && c.at < schedule[i - 1].at)
      throw InputError(path + ".at", "entries must be in time order (earlier than the one before)");
    if (c.node) {
      if (c.from || c.to)
        throw InputError(path, "names both a node and a link: give either node or from and to");
      check_node_id(s, *c.node, path + ".node");
      if (c.latency || c.bandwidth)
        throw InputError(path, "a node change sets egress or ingress, not latency or bandwidth");
      if (!c.egress && !c.ingress) throw InputError(path, "a node change needs egress or ingress");
      continue;
    }
    if (!c.from || !c.to) throw InputError(path, "needs either node, or from and to (a link)");
    check_node_id(s, *c.from, path + ".from");
    check_node_id(s, *c.to, path + ".to");
    if (*c.from == *c.to) throw InputError(path + ".to", "must differ from \"from\"");
    if (c.egress || c.ingress)
      throw InputError(path, "a link change sets latency or bandwidth, not egress or ingress");
    if (!c.latency && !c.bandwidth)
      throw InputError(path, "a link change needs latency or bandwidth");
  }
  for (std::size_t i = 0; i < s.network.down.size(); ++i) {
    const std::string path = index_path("network.down", i);
    const LinkOutageSpec& o = s.network.down[i];
    check_node_id(s, o.from, path + ".from");
    check_node_id(s, o.to, path + ".to");
    if (o.from == o.to) throw InputError(path + ".to", "must differ from \"from\"");
    if (!(o.start < o.end)) throw InputError(path + ".end", "must be later than start");
  }
}

void check_network(const Scenario& s) {
  std::map<std::int64_t, std::size_t> node_index;
  for (std::size_t i = 0; i < s.network.nodes.size(); ++i) {
    const std::string path = index_path("network.nodes", i) + ".id";
    const std::int64_t id = s.network.nodes[i].id;
    check_node_id(s, id, path);
    if (auto [it, fresh] = node_index.emplace(id, i); !fresh) {
      throw InputError(path, "duplicate node id " + std::to_string(id) + " (also in " +
                                 index_path("network.nodes", it->second) + ")");
    }
  }
  std::map<std::pair<std::int64_t, std::int64_t>, std::size_t> link_index;
  for (std::size_t i = 0; i < s.network.links.size(); ++i) {
    const std::string path = index_path("network.links", i);
    const LinkSpec& link = s.network.links[i];
    check_node_id(s, link.from, path + ".from");
    check_node_id(s, link.to, path + ".to");
    if (link.from == link.to) {
      throw InputError(path + ".to", "must differ from \"from\" (" + std::to_string(link.from) +
                                         "): a link joins two nodes");
    }
    if (auto [it, fresh] = link_index.emplace(std::pair{link.from, link.to}, i); !fresh) {
      throw InputError(path, "duplicate link " + std::to_string(link.from) + " -> " +
                                 std::to_string(link.to) + " (also in " +
                                 index_path("network.links", it->second) + ")");
    }
  }
  check_network_faults(s);
}

// The compressor object's own checks (models/compress/factory.cpp), plus k <= d when the
// scenario states the dimension (profile parameters; least-squares on synthetic data);
// otherwise k <= d is checked when the run builds its compressors.
void check_compressor(const Scenario& s) {
  try {
    const auto config = models::parse_compressor(s.algorithm.compressor.options);
    std::optional<std::int64_t> d;
    if (s.model.kind == "profile") d = s.model.parameters;
    if (s.model.kind == "least-squares" && s.data.source == "synthetic-regression")
      d = s.data.features + (s.model.bias ? 1 : 0);
    if (d) models::check_dimensions(config, {*d});
  } catch (const models::CompressorConfigError& e) {
    throw InputError("algorithm.compressor." + e.key(), e.what());
  }
}

// The sgd aliases and the SVRG family (sim/algorithms/svrg.cpp, alpc_svrg.cpp).
void check_svrg_family(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.kind == "qsgd" && a.compressor.kind != "qsgd") {
    throw InputError("algorithm.compressor.kind",
                     "algorithm qsgd is sgd with the qsgd compressor; must be \"qsgd\" (or "
                     "absent), got \"" +
                         a.compressor.kind + "\"");
  }
  if (a.kind == "ef-sgd" && !a.compressor.error_feedback) {
    throw InputError("algorithm.compressor.error_feedback",
                     "algorithm ef-sgd is sgd with error feedback; must be true (or absent)");
  }
  if (!a.svrg_family()) return;
  if (a.downlink_compressor) {
    if (a.collective != "parameter-server") {
      throw InputError(
          "algorithm.downlink_compressor",
          "only a parameter server sends a downlink; collective is \"" + a.collective + "\"");
    }
    try {
      (void)models::parse_compressor(a.downlink_compressor->options);
    } catch (const models::CompressorConfigError& e) {
      throw InputError("algorithm.downlink_compressor." + e.key(), e.what());
    }
  }
  const bool has_math = s.model.kind != "profile";
  if (!a.epoch_length && s.data.source == "none") {
    throw InputError("algorithm.epoch_length",
                     "required for models without data (model.kind \"" + s.model.kind +
                         "\"): the epoch cannot be one pass over a shard");
  }
  if (a.kind == "alpc-svrg") {
    if (a.momentum != 0.0 || a.weight_decay != 0.0) {
      throw InputError(a.momentum != 0.0 ? "algorithm.momentum" : "algorithm.weight_decay",
                       "alpc-svrg has its own (Katyusha) momentum and uses model.l2 for "
                       "regularization; must be 0");
    }
    if (a.double_sampling && a.option == "II") {
      throw InputError("algorithm.double_sampling",
                       "the second sample feeds the option-I y-step; option II has none");
    }
    if (has_math && !a.sigma && s.model.l2 <= 0.0) {
      throw InputError("algorithm.sigma",
                       "Katyusha needs the strong convexity sigma > 0: give algorithm.sigma "
                       "or model.l2 > 0 (sigma defaults to model.l2, which is 0)");
    }
    const bool estimable =
        s.model.kind == "least-squares" || s.model.kind == "logistic" || s.model.kind == "softmax";
    if (has_math && !a.L && !estimable) {
      throw InputError("algorithm.L", "cannot be estimated for model.kind \"" + s.model.kind +
                                          "\" (least-squares, logistic and softmax only); give it");
    }
  }
}

// Learning-rate schedules (sim/algorithms/lr_schedule.hpp).
void check_schedule(const Scenario& s) {
  const AlgorithmSpec::Schedule& schedule = s.algorithm.schedule;
  const std::string path = "algorithm.schedule";
  if (schedule.kind == "step" && schedule.milestones.empty())
    throw InputError(path + ".milestones", "a step schedule needs at least one milestone");
  for (std::size_t i = 1; i < schedule.milestones.size(); ++i) {
    if (!(schedule.milestones[i - 1] < schedule.milestones[i]))
      throw InputError(index_path(path + ".milestones", i), "milestones must increase");
  }
  if (schedule.warmup >= 1 && schedule.warmup != std::floor(schedule.warmup)) {
    throw InputError(path + ".warmup",
                     "below 1 a fraction of the run, from 1 on a whole number of iterations; "
                     "got " +
                         messages::number_text(schedule.warmup));
  }
  const bool fractions =
      !schedule.milestones.empty() || (schedule.warmup > 0 && schedule.warmup < 1);
  if (fractions && !s.stop.iterations && !s.stop.epochs) {
    throw InputError(path,
                     "milestones and fractional warmup are fractions of the run's "
                     "iterations: they need stop.iterations or stop.epochs");
  }
  const bool constant = schedule.kind == "constant" && schedule.warmup == 0;
  if (s.algorithm.kind == "alpc-svrg" && !constant) {
    throw InputError(path,
                     "alpc-svrg derives its steps from L and sigma (Katyusha); only "
                     "{\"kind\": \"constant\"} without warmup");
  }
}

// The gossip kinds of issue 7 (choco-sgd, adag-sgd, choco-gossip, sgp, choco-sgp,
// adag-sgp); the graph they need (symmetric for the CHOCO family) is checked in
// topology_build.cpp.
void check_gossip_algorithm(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  const bool choco = a.kind == "choco-sgd" || a.kind == "adag-sgd" || a.kind == "choco-gossip";
  const bool push_sum = a.kind == "sgp" || a.kind == "choco-sgp" || a.kind == "adag-sgp";
  if (!choco && !push_sum) return;
  if (s.workers < 2) {
    throw InputError("workers",
                     a.kind + " needs at least 2 workers, got " + std::to_string(s.workers));
  }
  if (a.kind == "sgp" && a.compressor.kind != "none") {
    throw InputError(
        "algorithm.compressor.kind",
        "sgp sends uncompressed (x, w) pairs; must be \"none\", got \"" + a.compressor.kind + "\"");
  }
  if (a.kind == "choco-gossip" && s.model.kind != "consensus" && s.model.kind != "profile") {
    throw InputError("model.kind",
                     "choco-gossip only averages (no local steps); needs model kind "
                     "\"consensus\" or \"profile\", got \"" +
                         s.model.kind + "\" (use choco-sgd to train)");
  }
}

void check_algorithm(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.nesterov && a.momentum == 0.0) {
    throw InputError("algorithm.nesterov", "requires algorithm.momentum > 0, got momentum 0");
  }
  if (!s.decentralized() && a.collective == "ring-allreduce") {
    // partial sums are re-encoded at every hop: only elementwise roundings are all-reducible
    if (a.compressor.kind != "none" && a.compressor.kind != "fp16") {
      throw InputError("algorithm.collective",
                       "ring-allreduce sums partial vectors hop by hop and needs an "
                       "all-reducible compressor (none or fp16), got \"" +
                           a.compressor.kind + "\"");
    }
    if (a.compressor.error_feedback) {
      throw InputError("algorithm.compressor.error_feedback",
                       "ring-allreduce sends chunks of varying length and cannot keep an "
                       "error-feedback residual; use allgather or parameter-server");
    }
  }
  check_compressor(s);
  check_svrg_family(s);
  check_gossip_algorithm(s);
  check_schedule(s);
  if (a.kind == "dpsgd") {
    if (a.compressor.kind != "none") {
      throw InputError(
          "algorithm.compressor.kind",
          "dpsgd sends uncompressed models; must be \"none\", got \"" + a.compressor.kind + "\"");
    }
    if (s.workers < 2) {
      throw InputError("workers",
                       "dpsgd needs at least 2 workers, got " + std::to_string(s.workers));
    }
  }
}

// Which data each model kind can use (DESIGN.md §4):
//  - profile and consensus need data.source none, every other model needs data;
//  - logistic needs binary labels (or positive_classes), softmax and mlp integer class
//    labels; synthetic-regression has real-valued targets, so only least-squares fits it
//    (labels of files are checked when they are read);
//  - least-squares accepts classification data and regresses the class index (allowed,
//    documented: a baseline, not a classifier);
//  - consensus only makes sense for decentralized algorithms (centralized ones keep one
//    model, so every worker would share one start).
void check_data(const Scenario& s) {
  const bool no_data = s.data.source == "none";
  const std::string& kind = s.model.kind;
  const bool dataless_model = kind == "profile" || kind == "consensus";
  if (dataless_model && !no_data) {
    throw InputError("data.source", "must be \"none\" for model kind \"" + kind + "\", got \"" +
                                        s.data.source + "\"");
  }
  if (!dataless_model && no_data) {
    throw InputError("data.source", "model kind \"" + kind + "\" needs data; got \"none\"");
  }
  if (kind == "consensus" && !s.decentralized()) {
    throw InputError("model.kind",
                     "consensus needs a decentralized algorithm (every worker "
                     "holds its own vector), got \"" +
                         s.algorithm.kind + "\"");
  }
  const bool convolutional = kind == "lenet5" || kind == "resnet";
  const bool classifier = kind == "logistic" || kind == "softmax" || kind == "mlp" || convolutional;
  // Convolutional models take 28x28x1 images: fashion-mnist, or 784 features (files are
  // checked when they are read, in prepare).
  if (convolutional && s.data.source == "synthetic-classification" && s.data.features != 784) {
    throw InputError("data.features", "model kind \"" + kind +
                                          "\" takes 28x28 images (784 features), got " +
                                          std::to_string(s.data.features));
  }
  if (classifier && s.data.source == "synthetic-regression") {
    throw InputError("data.source", "model kind \"" + kind +
                                        "\" needs class labels; synthetic-regression has real "
                                        "targets (use synthetic-classification)");
  }
  if (kind == "logistic" && s.data.source == "synthetic-classification" && s.data.classes > 2 &&
      s.model.positive_classes.empty()) {
    throw InputError("model.positive_classes",
                     "logistic regression is binary but data.classes is " +
                         std::to_string(s.data.classes) + "; list the positive classes");
  }
  if (kind == "logistic" && s.data.source == "fashion-mnist" && s.model.positive_classes.empty()) {
    throw InputError("model.positive_classes",
                     "logistic regression is binary but fashion-mnist has 10 classes; list the "
                     "positive classes");
  }
  if (no_data && s.stop.epochs) {
    throw InputError("stop.epochs", "epochs need data, but data.source is \"none\"");
  }
  if (kind == "profile" && s.stop.target_loss) {
    throw InputError("stop.target_loss",
                     "a target loss needs a model with a loss, but model kind is \"profile\"");
  }
  if (no_data && s.metrics.every == MetricsSpec::Every::epochs) {
    throw InputError("metrics.every.epochs", "epochs need data, but data.source is \"none\"");
  }
  if (no_data && s.metrics.eval_samples) {
    throw InputError("metrics.eval_samples", "needs data, but data.source is \"none\"");
  }
  if (!s.data.test_path.empty() && s.data.test_fraction > 0.0) {
    throw InputError("data.test_fraction",
                     "must be 0 when data.test_path gives a separate test file, got " +
                         messages::number_text(s.data.test_fraction));
  }
  if (s.data.source == "fashion-mnist" && s.data.test_fraction > 0.0) {
    throw InputError("data.test_fraction",
                     "must be 0 for fashion-mnist, which has its official 10,000-image test "
                     "set, got " +
                         messages::number_text(s.data.test_fraction));
  }
  if ((s.data.source == "csv" || s.data.source == "libsvm") && s.data.path.empty()) {
    throw InputError("data.path", "data.source " + s.data.source + " needs a path");
  }
  if (s.data.partition.kind == "shards" &&
      s.data.partition.per_worker > std::numeric_limits<std::int64_t>::max() / s.workers) {
    throw InputError("data.partition.per_worker", "too large");
  }
}

// metrics.per_worker (workers.csv): one row per worker's own model, so only where every
// worker holds one (decentralized algorithms) and there is math to evaluate.
void check_per_worker_metrics(const Scenario& s) {
  if (!s.metrics.per_worker) return;
  if (!s.decentralized()) {
    throw InputError("metrics.per_worker",
                     s.algorithm.kind +
                         " keeps one model that every worker shares, so per-worker rows would "
                         "repeat metrics.csv; per_worker needs a decentralized algorithm");
  }
  if (s.model.kind == "profile") {
    throw InputError("metrics.per_worker",
                     "model kind \"profile\" has no parameters to evaluate per worker");
  }
}

}  // namespace

Scenario to_scenario(const json& resolved) {
  Scenario s;
  try {
    s = read(resolved);
  } catch (const json::exception& e) {
    throw InputError("scenario", std::string("not a resolved scenario: ") + e.what());
  } catch (const std::invalid_argument& e) {
    throw InputError("scenario", std::string("not a resolved scenario: ") + e.what());
  }
  check_lattice_dims(s);
  check_compute(s);
  check_network(s);
  check_algorithm(s);
  check_data(s);
  check_per_worker_metrics(s);
  check_topology(s);
  check_node_failures(s, resolved);  // failure_check.cpp
  if (s.output_dir.empty()) throw InputError("output.dir", "must not be empty");
  s.resolved = resolved;
  return s;
}

}  // namespace dlsim::sim
