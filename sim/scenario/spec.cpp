// The table of every scenario key (docs/design.md §4). This is the single source of
// truth for validation, defaults, the JSON Schema and the key reference: a key that
// is not listed here is rejected. Bounds on quantities are in SI base units.
#include "sim/scenario/spec.hpp"

#include "sim/scenario/messages.hpp"
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec {
namespace {

using nlohmann::json;
using namespace sections;

Object build_scenario() {
  Key output_dir = defaulted("dir", string().nonempty(), "results/run",
                             "Directory that receives metrics.csv and summary.json.");
  output_dir.dynamic = [](const json& root) {
    const json name = lookup(root, {"name"});
    return json("results/" + (name.is_string() ? name.get<std::string>() : std::string("run")));
  };
  output_dir.default_doc = "\"results/\" + name";
  return plain({
      defaulted("name", string(), "run",
                "Name of the run; it names the default output folder results/<name>, so it "
                "must be a safe folder name: 1-128 bytes, no control characters, no slash or "
                "backslash, not \".\" or \"..\"."),
      defaulted("description", string(), "", "Free text."),
      defaulted("seed", integer().ge(0), 1, "Seed from which every random stream is derived."),
      defaulted("workers", integer().ge(1).le(16'777'216), 4,
                "Number of workers (at most 2^24; the memory guard refuses runs that do not fit)."),
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
      defaulted(
          "output",
          object(plain({output_dir,
                        defaulted("save_model", boolean(), false,
                                  "Write the final averaged model (the one the last metrics row "
                                  "evaluates) as model.npy (NumPy float64), and with "
                                  "metrics.per_worker every worker's own model as "
                                  "workers/model_<i>.npy. Models with parameter values only.")})),
          json::object(), "Where results go."),
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
