// The table of every scenario key (DESIGN.md §4). This is the single source of
// truth for validation, defaults, the JSON Schema and the key reference: a key that
// is not listed here is rejected. Bounds on quantities are in SI base units.
#include "sim/scenario/spec.hpp"

#include "sim/scenario/messages.hpp"

namespace dlsim::sim::spec {
namespace {

using nlohmann::json;

// The value at root.a.b... when every step exists, else null.
json lookup(const json& root, std::initializer_list<const char*> path) {
  const json* at = &root;
  for (const char* step : path) {
    if (!at->is_object() || !at->contains(step)) return nullptr;
    at = &(*at)[step];
  }
  return *at;
}

Key kind_key(std::string name, json fallback, std::string doc) {
  return defaulted(std::move(name), string(), std::move(fallback), std::move(doc));
}

// ---------------------------------------------------------------- data
Object data_section() {
  const std::vector<Key> with_data = {
      defaulted("test_fraction", number().ge(0).lt(1), 0,
                "Fraction of the training samples held out as the test set (0: none)."),
      defaulted("normalize", one_of({"none", "standard", "minmax"}), "none",
                "Feature scaling fitted on the training split: none, standard (zero mean, "
                "unit variance) or minmax ([0,1])."),
      defaulted("partition",
                object(with_kinds(kind_key("kind", "iid", "How samples are split among workers."),
                                  {}, {{"iid", "Shuffle, then equal contiguous shards.", {}}})),
                json::object(), "How the training set is split among the workers."),
  };
  Object data = with_kinds(
      kind_key("source", "synthetic-regression",
               "Where samples come from; none for models that need no data (profile)."),
      {},
      {
          {"synthetic-regression",
           "b = A w* + noise; rows of A Gaussian with a chosen condition number.",
           std::vector<Key>{
               defaulted("samples", integer().ge(1), 1000, "Number of samples generated."),
               defaulted("features", integer().ge(1), 20, "Number of features."),
               defaulted("noise", number().ge(0), 0.1, "Standard deviation of the label noise."),
               defaulted("condition", number().ge(1), 1,
                         "Condition number of the feature covariance."),
           } + with_data},
          {"csv", "A CSV file with a header row; the label column, every other column numeric.",
           std::vector<Key>{
               required("path", string().nonempty(), "Path of the training CSV file."),
               defaulted("test_path", string(), "",
                         "Path of a separate test CSV file (empty: none)."),
               defaulted("label_column", string().nonempty(), "label",
                         "Name of the column that holds the label."),
           } + with_data},
          {"none", "No data (model.kind profile).", {}},
      });
  data.discriminator->dynamic = [](const json& root) {
    return json(lookup(root, {"model", "kind"}) == "profile" ? "none" : "synthetic-regression");
  };
  data.discriminator->default_doc = "none when model.kind is profile, else synthetic-regression";
  return data;
}

// ---------------------------------------------------------------- model
Object model_section() {
  const Object init =
      with_kinds(kind_key("kind", "zeros", "Initial model distribution."), {},
                 {{"zeros", "Every weight 0.", {}},
                  {"normal",
                   "Weights drawn from N(0, std^2) with the run's seed.",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  return with_kinds(
      kind_key("kind", "least-squares", "The objective each worker optimizes."), {},
      {{"least-squares",
        "f(w) = (1/2N) sum (a_i'w - b_i)^2 + (l2/2)||w||^2 + l1||w||_1.",
        {
            defaulted("l2", number().ge(0), 0, "L2 regularization strength."),
            defaulted("l1", number().ge(0), 0, "L1 regularization strength (proximal step)."),
            defaulted("bias", boolean(), true, "Add an unregularized bias weight."),
            defaulted("init", object(init), json::object(),
                      "Initial model (same on every worker)."),
        }},
       {"profile",
        "No math: a parameter count and a compute time per batch, for timing what-ifs.",
        {
            required("parameters", integer().ge(1), "Number of model parameters (fp32 each)."),
            defaulted("compute_time", time().gt(0), "10ms", "Compute time of one batch gradient."),
        }}});
}

// ---------------------------------------------------------------- algorithm
Object algorithm_section() {
  const Object compressor =
      with_kinds(kind_key("kind", "none", "How messages are encoded on the wire."),
                 {defaulted("error_feedback", boolean(), false,
                            "Keep the compression error and add it to the next message.")},
                 {{"none", "Uncompressed fp32.", {}}});
  const std::vector<Key> common = {
      defaulted("step_size", number().gt(0), 0.01, "Learning rate."),
      defaulted("batch_size", integer().ge(1), 32, "Samples per local gradient."),
      defaulted("momentum", number().ge(0).lt(1), 0, "Heavy-ball momentum."),
      defaulted("nesterov", boolean(), false, "Nesterov momentum (needs momentum > 0)."),
      defaulted("weight_decay", number().ge(0), 0, "Decoupled weight decay."),
      defaulted("compressor", object(compressor), json::object(),
                "Compression of every message a worker sends."),
  };
  return with_kinds(
      kind_key("kind", "sgd", "The distributed training algorithm."), common,
      {{"sgd",
        "Centralized synchronous mini-batch SGD.",
        {defaulted("collective", one_of({"parameter-server", "allgather", "ring-allreduce"}),
                   "parameter-server",
                   "How gradients are combined: a parameter server (an extra node with id = "
                   "workers), allgather, or ring all-reduce (uncompressed only).")}},
       {"dpsgd", "Decentralized parallel SGD: local step, then gossip with neighbours.", {}}});
}

// ---------------------------------------------------------------- topology
Object topology_section() {
  return with_kinds(
      kind_key("kind", "ring", "The communication graph of decentralized algorithms."),
      {defaulted("weights", one_of({"metropolis", "uniform", "max-degree"}), "metropolis",
                 "Mixing weights of the gossip matrix.")},
      {{"ring", "i ~ i+1 and i-1 (mod n).", {}},
       {"torus",
        "+-1 along each dimension with wrap-around.",
        {required("dims", array_of(integer().ge(2)).nonempty(),
                  "Size of each dimension; the product must equal workers.")}}});
}

// ---------------------------------------------------------------- network
Object network_section() {
  const auto bandwidth_default = [](const json& root) {
    json b = lookup(root, {"network", "bandwidth"});
    return b.is_null() ? json("10Gbps") : b;
  };
  Key egress = defaulted("egress", rate().gt(0), "10Gbps", "Egress port rate of every node.");
  Key ingress = defaulted("ingress", rate().gt(0), "10Gbps", "Ingress port rate of every node.");
  for (Key* k : {&egress, &ingress}) {
    k->dynamic = bandwidth_default;
    k->default_doc = "the value of network.bandwidth";
  }
  const Object node = plain({
      required("id", integer().ge(0),
               "Node id: a worker 0..workers-1, or workers for the parameter server."),
      optional("egress", rate().gt(0), "Egress port rate of this node."),
      optional("ingress", rate().gt(0), "Ingress port rate of this node."),
  });
  const Object link = plain({
      required("from", integer().ge(0), "Sending node id."),
      required("to", integer().ge(0), "Receiving node id."),
      optional("latency", time().ge(0), "Latency of this link."),
      optional("bandwidth", rate().gt(0), "Bandwidth of this link."),
  });
  return plain({
      defaulted("latency", time().ge(0), "10us", "Latency of every link."),
      defaulted("bandwidth", rate().gt(0), "10Gbps", "Bandwidth of every link."),
      defaulted("sharing", one_of({"fair", "fifo"}), "fair",
                "How concurrent transfers share ports and links: max-min fair or FIFO."),
      defaulted("header", size().ge(0), "0B", "Header size added to every message."),
      defaulted("nic", object(plain({egress, ingress})), json::object(),
                "Port rates of every node (full duplex)."),
      defaulted("nodes", array_of(object(node)), json::array(), "Per-node NIC overrides."),
      defaulted("links", array_of(object(link)), json::array(), "Per-link overrides (directed)."),
  });
}

// ---------------------------------------------------------------- the rest
Object compute_section() {
  return plain({
      defaulted("speed", flops().gt(0), "10GFLOPS",
                "FLOP/s of every worker and of the parameter server."),
      defaulted("per_worker", array_of(number().gt(0)), json::array(),
                "Time factor per worker (4: that worker's math takes 4x as long); empty: all 1."),
      defaulted("jitter", number().ge(0), 0, "Sigma of a lognormal factor on every compute time."),
  });
}

Object stop_section() {
  Object stop = plain({
      optional("epochs", number().gt(0), "Stop after this many epochs."),
      optional("iterations", integer().ge(1), "Stop after this many iterations."),
      optional("sim_time", time().gt(0), "Stop at this simulated time."),
      optional("bits", size().gt(0), "Stop when this many payload bits have been sent."),
      optional("target_loss", number(), "Stop when the train loss reaches this value."),
  });
  stop.min_keys = 1;
  return stop;
}

Object metrics_section() {
  Object every = plain({
      optional("iterations", integer().ge(1), "Record every this many iterations."),
      optional("epochs", number().gt(0), "Record every this many epochs."),
      optional("sim_time", time().gt(0), "Record every this much simulated time."),
  });
  every.min_keys = 1;
  every.max_keys = 1;
  return plain({
      defaulted("every", object(every), json{{"iterations", 10}},
                "How often a metrics row is recorded (exactly one key)."),
      defaulted("test", boolean(), true, "Evaluate on the test set (when there is one)."),
  });
}

Object sweep_section() {
  Object grid;
  grid.map_values = std::make_shared<const Value>(array_of(any()).nonempty());
  return plain({
      defaulted("grid", object(grid), json::object(),
                "Dotted scenario key -> list of values; every combination is run."),
      defaulted("repeat", integer().ge(1), 1, "Runs per grid point (seeds seed, seed+1, ...)."),
  });
}

Object build_scenario() {
  Key output_dir = defaulted("dir", string().nonempty(), "results/run",
                             "Directory that receives metrics.csv and summary.json.");
  output_dir.dynamic = [](const json& root) {
    const json name = lookup(root, {"name"});
    return json("results/" + (name.is_string() ? name.get<std::string>() : std::string("run")));
  };
  output_dir.default_doc = "\"results/\" + name";
  return plain({
      defaulted("name", string(), "run", "Name of the run."),
      defaulted("description", string(), "", "Free text."),
      defaulted("seed", integer().ge(0), 1, "Seed from which every random stream is derived."),
      defaulted("workers", integer().ge(1).le(1'000'000), 4, "Number of workers."),
      defaulted("data", object(data_section()), json::object(), "The training data."),
      defaulted("model", object(model_section()), json::object(), "The model and objective."),
      defaulted("algorithm", object(algorithm_section()), json::object(),
                "The distributed training algorithm and its compressor."),
      defaulted("topology", object(topology_section()), json::object(),
                "The gossip graph (decentralized algorithms)."),
      defaulted("network", object(network_section()), json::object(),
                "Links, ports and how they are shared."),
      defaulted("compute", object(compute_section()), json::object(),
                "How long the math takes in simulated time."),
      defaulted("stop", object(stop_section()), json{{"iterations", 100}},
                "When the run ends: the first condition reached wins (at least one)."),
      defaulted("metrics", object(metrics_section()), json::object(),
                "What is recorded and how often."),
      defaulted("output", object(plain({output_dir})), json::object(), "Where results go."),
      defaulted("sweep", object(sweep_section()), json::object(),
                "Parameter grid for `dlsim sweep` (ignored by `dlsim run`)."),
  });
}

std::string bound_text(const Value& v) {
  using messages::number_text;
  if (v.min && v.max) {
    return " in " + std::string(v.min->inclusive ? "[" : "(") + number_text(v.min->value) + ", " +
           number_text(v.max->value) + (v.max->inclusive ? "]" : ")");
  }
  if (v.min) return std::string(v.min->inclusive ? " >= " : " > ") + number_text(v.min->value);
  if (v.max) return std::string(v.max->inclusive ? " <= " : " < ") + number_text(v.max->value);
  return "";
}

}  // namespace

const Object& scenario() {
  static const Object root = build_scenario();
  return root;
}

std::string type_text(const Value& value) {
  switch (value.type) {
    case Type::any:
      return "any value";
    case Type::boolean:
      return "boolean";
    case Type::integer:
      return "integer" + bound_text(value);
    case Type::number:
      return "number" + bound_text(value);
    case Type::string:
      if (!value.choices.empty()) return "one of: " + messages::join(value.choices);
      return value.non_empty ? "non-empty string" : "string";
    case Type::time:
      return "time (seconds, or ns us ms s)" + bound_text(value);
    case Type::rate:
      return "rate (bit/s, or bps Kbps Mbps Gbps Tbps Bps KBps MBps GBps)" + bound_text(value);
    case Type::size:
      return "size (bits, or b Kb Mb Gb B KB MB GB)" + bound_text(value);
    case Type::flops:
      return "speed (FLOP/s, or FLOPS KFLOPS MFLOPS GFLOPS TFLOPS)" + bound_text(value);
    case Type::array:
      return std::string(value.non_empty ? "non-empty " : "") + "array of " +
             type_text(*value.items);
    case Type::object:
      return "object";
  }
  return "value";
}

}  // namespace dlsim::sim::spec
