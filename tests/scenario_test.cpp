// Scenario loading (sim/scenario/load.hpp): defaults, preserved user values,
// --set overrides, file reading, strict rejection of malformed input with the exact
// JSON path, the combination checks of to_scenario, and the generated JSON Schema.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "models/compress/factory.hpp"
#include "models/data/kinds/options.hpp"
#include "models/objectives/kinds/options.hpp"
#include "scenario_helpers.hpp"
#include "sim/scenario/load.hpp"
#include "sim/scenario/spec.hpp"
#include "sim/scenario/topology_build.hpp"
#include "topologies/kinds/lattice.hpp"

using dlsim::sim::apply_override;
using dlsim::sim::InputError;
using dlsim::sim::load_scenario;
using dlsim::sim::MetricsSpec;
using dlsim::sim::read_scenario_file;
using dlsim::sim::resolve_scenario;
using dlsim::sim::Scenario;
using dlsim::sim::scenario_schema;
using dlsim::sim::to_scenario;
using nlohmann::json;

using namespace dlsim::test;

TEST_CASE("an empty scenario resolves to the documented defaults", "[scenario]") {
  const json r = resolve_scenario(json::object());
  CHECK(r["name"] == "run");
  CHECK(r["description"] == "");
  CHECK(r["seed"] == 1);
  CHECK(r["workers"] == 4);
  CHECK(r["data"] ==
        json::parse(R"({"source": "synthetic-regression", "preset": "none", "samples": 1000,
      "features": 20, "noise": 0.1, "condition": 1, "test_fraction": 0, "normalize": "none",
      "storage": "float64", "partition": {"kind": "iid"}})"));
  CHECK(r["model"] == json::parse(R"({"kind": "least-squares", "l2": 0, "l1": 0, "bias": true,
      "init": {"kind": "zeros"}})"));
  CHECK(r["algorithm"] == json::parse(R"({"kind": "sgd", "step_size": 0.01, "batch_size": 32,
      "momentum": 0, "nesterov": false, "weight_decay": 0, "collective": "parameter-server",
      "compressor": {"kind": "none", "error_feedback": false, "per_tensor": true}})"));
  CHECK(r["topology"] == json::parse(R"({"kind": "ring", "weights": "metropolis"})"));
  CHECK(r["network"] == json::parse(R"({"latency": "10us", "bandwidth": "10Gbps",
      "sharing": "fair", "model": "cm02", "header": "0B", "nic": {"egress": "10Gbps", "ingress": "10Gbps"},
      "nodes": [], "links": [], "faults": {"drop_probability": 0}, "schedule": [], "down": []})"));
  CHECK(r["compute"] == json::parse(R"({"speed": "10GFLOPS", "per_worker": [], "jitter": 0})"));
  CHECK(r["stop"] == json::parse(R"({"iterations": 100})"));
  CHECK(r["metrics"] ==
        json::parse(R"({"every": {"iterations": 10}, "test": true, "per_worker": false})"));
  CHECK(r["output"] == json::parse(R"({"dir": "results/run", "save_model": false})"));
  CHECK(r["sweep"] == json::parse(R"({"grid": {}, "repeat": 1})"));
  CHECK(keys_of(r).size() == 14);
}

TEST_CASE("the typed scenario of an empty document", "[scenario]") {
  const Scenario s = load_scenario(json::object());
  CHECK(s.name == "run");
  CHECK(s.seed == 1);
  CHECK(s.workers == 4);
  CHECK(s.data.source == "synthetic-regression");
  CHECK(s.data.options_as<dlsim::models::SyntheticRegressionSource>().options.samples == 1000);
  CHECK(s.data.options_as<dlsim::models::SyntheticRegressionSource>().options.noise == 0.1);
  CHECK(s.model.kind == "least-squares");
  CHECK(s.model.options_as<dlsim::models::LeastSquaresOptions>().bias);
  CHECK(s.algorithm.kind == "sgd");
  CHECK(s.algorithm.collective == "parameter-server");
  CHECK(s.algorithm.batch_size == 32);
  CHECK(s.algorithm.compressor.kind == "none");
  CHECK(s.resolved["algorithm"]["compressor"] ==
        json::parse(R"({"kind":"none","error_feedback":false,"per_tensor":true})"));
  CHECK_FALSE(s.algorithm.compressor.error_feedback);
  CHECK(s.algorithm.compressor.per_tensor);
  REQUIRE(s.algorithm.compressor.options);
  CHECK(s.algorithm.compressor.options->build()->bits_for(10) == 320);  // fp32
  CHECK_FALSE(s.decentralized());
  CHECK(s.network.latency.ps == 10'000'000);
  CHECK(s.network.bandwidth == 10e9);
  CHECK(s.network.header == 0);
  CHECK(s.network.nic_egress == 10e9);
  CHECK(s.network.nic_ingress == 10e9);
  CHECK(s.compute.speed == 10e9);
  CHECK(s.compute.per_worker.empty());
  REQUIRE(s.stop.iterations);
  CHECK(*s.stop.iterations == 100);
  CHECK_FALSE(s.stop.epochs);
  CHECK_FALSE(s.stop.sim_time);
  CHECK(s.metrics.every == MetricsSpec::Every::iterations);
  CHECK(s.metrics.every_iterations == 10);
  CHECK(s.metrics.test);
  CHECK(s.output_dir == "results/run");
  CHECK(s.resolved == resolve_scenario(json::object()));
}

TEST_CASE("defaults that depend on other keys", "[scenario]") {
  SECTION("data.source is none for a profile model") {
    const json r =
        resolve_scenario(json::parse(R"({"model": {"kind": "profile", "parameters": 25000000}})"));
    CHECK(r["data"] == json::parse(R"({"source": "none"})"));
    CHECK(r["model"]["compute_time"] == "10ms");
    const Scenario s = to_scenario(r);
    CHECK(s.model.options_as<dlsim::models::ProfileOptions>().tensor_sizes ==
          std::vector<dlsim::models::Index>{25'000'000});
    // 10ms, rounded to the picosecond (sim/scenario/quantity.hpp) and back to seconds.
    CHECK(s.model.options_as<dlsim::models::ProfileOptions>().compute_seconds ==
          dlsim::sim::SimTime::from_ps(10'000'000'000).seconds());
  }
  SECTION("a profile given as layers has no fixed compute time by default") {
    const json r = resolve_scenario(json::parse(
        R"({"model": {"kind": "profile", "layers": [{"name": "a", "parameters": 5}]}})"));
    CHECK(r["model"]["compute_time"] == "0s");
    CHECK(r["model"]["layers"][0]["flops"] == 0);
  }
  SECTION("nic rates default to network.bandwidth as written") {
    const json r = resolve_scenario(json::parse(R"({"network": {"bandwidth": "1 Gbps"}})"));
    CHECK(r["network"]["nic"] == json::parse(R"({"egress": "1 Gbps", "ingress": "1 Gbps"})"));
    const Scenario s = to_scenario(r);
    CHECK(s.network.nic_egress == 1e9);
    CHECK(s.network.nic_ingress == 1e9);
  }
  SECTION("a nic rate that is given is kept, the other follows bandwidth") {
    const json r = resolve_scenario(
        json::parse(R"({"network": {"bandwidth": 2e9, "nic": {"egress": "100Mbps"}}})"));
    CHECK(r["network"]["nic"] == json::parse(R"({"egress": "100Mbps", "ingress": 2e9})"));
  }
  SECTION("output.dir follows name") {
    const json r = resolve_scenario(json::parse(R"({"name": "choco-ring16"})"));
    CHECK(r["output"]["dir"] == "results/choco-ring16");
  }
  SECTION("the kind's own defaults are filled in") {
    const json r = resolve_scenario(json::parse(
        R"({"model": {"init": {"kind": "normal"}}, "data": {"source": "csv", "path": "a.csv"}})"));
    CHECK(r["model"]["init"] == json::parse(R"({"kind": "normal", "std": 0.01})"));
    CHECK(r["data"] == json::parse(R"({"source": "csv", "path": "a.csv", "test_path": "",
        "label_column": "label", "test_fraction": 0, "normalize": "none",
        "storage": "float64", "partition": {"kind": "iid"}})"));
  }
}

TEST_CASE("user values are kept as written and resolving is idempotent", "[scenario]") {
  const json raw = json::parse(R"({
    "name": "torus", "seed": 7, "workers": 16,
    "data": {"samples": 640, "normalize": "standard", "test_fraction": 0.25},
    "model": {"l2": 1e-4, "init": {"kind": "normal", "std": 0.5}},
    "algorithm": {"kind": "dpsgd", "step_size": 0.05, "momentum": 0.9, "nesterov": true},
    "topology": {"kind": "torus", "dims": [4, 4], "weights": "uniform"},
    "network": {"latency": "5 us", "bandwidth": "10Gbps", "header": "64B", "sharing": "fifo",
                "nodes": [{"id": 3, "egress": "1Gbps"}],
                "links": [{"from": 0, "to": 1, "latency": "1ms", "bandwidth": "100Mbps"}]},
    "compute": {"speed": "50GFLOPS", "jitter": 0.1},
    "stop": {"epochs": 5, "sim_time": "2s", "bits": "1GB", "target_loss": 0.01},
    "metrics": {"every": {"sim_time": "10ms"}, "test": false},
    "output": {"dir": "/tmp/out"},
    "sweep": {"grid": {"network.bandwidth": ["1Gbps", "10Gbps"], "workers": [4, 16]}, "repeat": 3}
  })");
  const json r = resolve_scenario(raw);
  CHECK(r["network"]["latency"] == "5 us");
  CHECK(r["network"]["bandwidth"] == "10Gbps");
  CHECK(r["network"]["nodes"] == raw["network"]["nodes"]);
  CHECK(r["network"]["links"] == raw["network"]["links"]);
  CHECK(r["topology"]["dims"] == json::array({4, 4}));
  CHECK(r["sweep"] == raw["sweep"]);
  CHECK(r["stop"] == raw["stop"]);
  CHECK_FALSE(r["algorithm"].contains("collective"));
  CHECK(resolve_scenario(r) == r);

  const Scenario s = to_scenario(r);
  CHECK(s.decentralized());
  CHECK(s.workers == 16);
  CHECK(s.seed == 7);
  CHECK(dlsim::sim::topology_params(s).options_as<dlsim::topo::LatticeOptions>().dims ==
        std::vector<std::int64_t>{4, 4});
  CHECK(s.network.latency.ps == 5'000'000);
  CHECK(s.network.header == 512);
  CHECK(s.network.sharing == "fifo");
  REQUIRE(s.network.nodes.size() == 1);
  CHECK(s.network.nodes[0].id == 3);
  CHECK(s.network.nodes[0].egress == 1e9);
  CHECK_FALSE(s.network.nodes[0].ingress);
  REQUIRE(s.network.links.size() == 1);
  CHECK(s.network.links[0].latency->ps == 1'000'000'000);
  CHECK(*s.network.links[0].bandwidth == 100e6);
  CHECK(s.compute.speed == 50e9);
  CHECK(*s.stop.epochs == 5.0);
  CHECK(s.stop.sim_time->ps == 2'000'000'000'000);
  CHECK(*s.stop.bits == 8'000'000'000ULL);
  CHECK(*s.stop.target_loss == 0.01);
  CHECK(s.metrics.every == MetricsSpec::Every::sim_time);
  CHECK(s.metrics.every_sim_time.ps == 10'000'000'000);
  CHECK_FALSE(s.metrics.test);
  CHECK(s.model.options_as<dlsim::models::LinearOptions>().init.kind ==
        dlsim::models::InitOptions::Kind::normal);
  CHECK(s.model.options_as<dlsim::models::LinearOptions>().init.std == 0.5);
  CHECK(s.data.normalize == "standard");
  CHECK(s.output_dir == "/tmp/out");
}

TEST_CASE("the parameter server may have a NIC override", "[scenario]") {
  const Scenario s = load_scenario(
      json::parse(R"({"workers": 4, "network": {"nodes": [{"id": 4, "ingress": "40Gbps"}]}})"));
  CHECK(s.network.nodes.at(0).id == 4);
  CHECK(*s.network.nodes.at(0).ingress == 40e9);
}

TEST_CASE("set overrides (--set KEY=VALUE)", "[scenario][override]") {
  json doc = json::parse(R"({"network": {"latency": "1us"}, "workers": 4})");
  apply_override(doc, "network.bandwidth=1Gbps");
  CHECK(doc["network"]["bandwidth"] == "1Gbps");
  CHECK(doc["network"]["latency"] == "1us");
  apply_override(doc, "workers=8");
  CHECK(doc["workers"].is_number_integer());
  CHECK(doc["workers"] == 8);
  apply_override(doc, R"(algorithm.compressor={"kind":"none"})");
  CHECK(doc["algorithm"]["compressor"] == json::parse(R"({"kind": "none"})"));
  apply_override(doc, "a.b.c=true");
  CHECK(doc["a"]["b"]["c"] == true);
  apply_override(doc, R"(name="42")");
  CHECK(doc["name"] == "42");
  apply_override(doc, "description=x=y");
  CHECK(doc["description"] == "x=y");
  apply_override(doc, "compute.per_worker=[1, 2.5]");
  CHECK(doc["compute"]["per_worker"] == json::array({1, 2.5}));
  apply_override(doc, "a.b=null");
  CHECK(doc["a"] == json::object());

  json empty;
  apply_override(empty, "stop.epochs=2");
  CHECK(empty == json::parse(R"({"stop": {"epochs": 2}})"));
}

TEST_CASE("set override errors name the flag and the assignment", "[scenario][override]") {
  json doc = json::parse(R"({"workers": 4})");
  for (const auto& [assignment, fragment] : std::vector<std::pair<std::string, std::string>>{
           {"workers", "expected KEY=VALUE, got \"workers\""},
           {"=5", "empty key in \"=5\""},
           {"network..bandwidth=1", "empty key"},
           {"network.=1", "empty key"},
           {"workers.count=1", "workers is 4, not an object"},
       }) {
    INFO(assignment);
    const Outcome o = outcome_of([&] { apply_override(doc, assignment); });
    REQUIRE(o.thrown);
    CHECK(o.where == "--set");
    CHECK_THAT(o.problem, Catch::Contains(fragment));
  }
  CHECK(doc == json::parse(R"({"workers": 4})"));  // failed overrides change nothing
  json list = json::array({1});
  const Outcome o = outcome_of([&] { apply_override(list, "workers=1"); });
  CHECK(o.where == "--set");
  CHECK_THAT(o.problem, Catch::Contains("not an object"));
}

TEST_CASE("an override that breaks the scenario fails validation at its path",
          "[scenario][override]") {
  json doc = json::object();
  apply_override(doc, "network.bandwith=1Gbps");
  const Outcome o = outcome_of([&] { resolve_scenario(doc); });
  CHECK(o.where == "network.bandwith");
  CHECK_THAT(o.problem, Catch::Contains("did you mean \"bandwidth\"?"));
}

TEST_CASE("reading scenario files", "[scenario][file]") {
  SECTION("a valid file") {
    TempFile f(R"({"workers": 2, "network": {"bandwidth": "1Gbps"}})");
    CHECK(read_scenario_file(f.path.string()) ==
          json::parse(R"({"workers": 2, "network": {"bandwidth": "1Gbps"}})"));
  }
  SECTION("broken JSON names the file, line and column") {
    TempFile f("{\n  \"workers\": 4,\n  \"seed\": ,\n}\n");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    REQUIRE(o.thrown);
    CHECK(o.where == f.path.string());
    CHECK_THAT(o.problem, Catch::StartsWith("invalid JSON at line 3, column 11: "));
    CHECK_THAT(o.problem, Catch::Contains("unexpected ','"));
  }
  SECTION("comments are ignored") {
    TempFile f(
        "// why 2 workers: the smallest ring\n"
        "{\"workers\": 2, /* inline */ \"network\": {\n"
        "  \"bandwidth\": \"1Gbps\" // the NIC rate\n"
        "}}\n/* trailing\n block */\n");
    CHECK(read_scenario_file(f.path.string()) ==
          json::parse(R"({"workers": 2, "network": {"bandwidth": "1Gbps"}})"));
  }
  SECTION("error positions count the comments' characters") {
    // Line 3 column 11 is the ',' after "seed":, after a comment on line 1 and a
    // block comment that shifts line 3's text.
    TempFile f("// note\n{ \"workers\": 4,\n/*x*/ \"seed\": ,\n}\n");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    REQUIRE(o.thrown);
    CHECK_THAT(o.problem, Catch::StartsWith("invalid JSON at line 3, column 15: "));
  }
  SECTION("an unterminated block comment") {
    // Reported where it opens, not at the end of the file; a "/*" inside a string and a
    // closed comment before it do not count.
    TempFile f("{\"name\": \"a/*b\", /* closed */\n  \"workers\": 4 /* never closed\n}\n");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    REQUIRE(o.thrown);
    CHECK(o.problem == "invalid JSON at line 2, column 16: a /* comment that is never closed");
  }
  SECTION("a trailing comma") {
    TempFile f("{\"workers\": 4,}");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    CHECK_THAT(o.problem, Catch::StartsWith("invalid JSON at line 1, column 15"));
  }
  SECTION("an empty file") {
    TempFile f("");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    CHECK_THAT(o.problem, Catch::StartsWith("invalid JSON at line 1, column 1"));
  }
  SECTION("a missing file") {
    const Outcome o = outcome_of([] { read_scenario_file("/nonexistent/dir/x.json"); });
    REQUIRE(o.thrown);
    CHECK(o.where == "/nonexistent/dir/x.json");
    CHECK(o.problem == "cannot read file: no such file or directory");
  }
  SECTION("a directory") {
    const auto dir = std::filesystem::temp_directory_path().string();
    const Outcome o = outcome_of([&] { read_scenario_file(dir); });
    CHECK(o.where == dir);
    CHECK_THAT(o.problem, Catch::StartsWith("cannot read file"));
  }
  SECTION("a duplicate key") {
    TempFile f(R"({"network": {"latency": "1us", "latency": "2us"}})");
    const Outcome o = outcome_of([&] { read_scenario_file(f.path.string()); });
    CHECK(o.where == f.path.string());
    CHECK(o.problem == "duplicate key \"latency\"");
  }
}

namespace {

// Walks schema and resolved document together: every property has a description,
// and every default agrees with what resolving `{}` produced. Returns how many
// defaults were compared.
int check_schema_defaults(const json& schema, const json& resolved, const std::string& path) {
  int compared = 0;
  if (schema.contains("properties") && resolved.is_object()) {
    for (const auto& [key, property] : schema["properties"].items()) {
      const std::string key_path = path.empty() ? key : path + "." + key;
      INFO(key_path);
      CHECK(property.contains("description"));
      if (!resolved.contains(key)) continue;
      if (property.contains("default")) {
        CHECK(property["default"] == resolved[key]);
        ++compared;
      }
      compared += check_schema_defaults(property, resolved[key], key_path);
    }
  }
  if (schema.contains("oneOf") && resolved.is_object()) {
    for (const auto& branch : schema["oneOf"]) {
      for (const auto& [key, property] : branch["properties"].items()) {
        if (property.contains("const") && resolved.value(key, json()) == property["const"]) {
          compared += check_schema_defaults(branch, resolved, path);
        }
      }
    }
  }
  return compared;
}

}  // namespace

TEST_CASE("the JSON Schema describes every section", "[scenario][schema]") {
  const json schema = scenario_schema();
  REQUIRE(schema.is_object());
  CHECK(schema["$schema"] == "https://json-schema.org/draft/2020-12/schema");
  CHECK(schema["type"] == "object");
  CHECK(schema["additionalProperties"] == false);
  for (const char* section :
       {"name", "description", "seed", "workers", "data", "model", "algorithm", "topology",
        "network", "compute", "stop", "metrics", "output", "sweep"}) {
    INFO(section);
    REQUIRE(schema["properties"].contains(section));
    CHECK_FALSE(schema["properties"][section]["description"].get<std::string>().empty());
  }
  CHECK(schema["properties"].size() == 14);
  CHECK(schema["properties"]["workers"]["minimum"].is_number_integer());
  CHECK(schema["properties"]["workers"]["minimum"] == 1);
  CHECK(schema["properties"]["workers"]["maximum"] == 16777216);
  CHECK(schema["properties"]["network"]["properties"]["sharing"]["enum"] ==
        json::array({"fair", "fifo"}));
  CHECK(schema["properties"]["stop"]["minProperties"] == 1);
  CHECK(schema["properties"]["metrics"]["properties"]["every"]["maxProperties"] == 1);
  // Kind-dependent keys: one closed branch per kind.
  const json& topology = schema["properties"]["topology"];
  REQUIRE(topology["oneOf"].size() == 16);
  const json& torus = topology["oneOf"][15];  // kinds in name order
  CHECK(torus["properties"]["kind"]["const"] == "torus");
  CHECK(torus["additionalProperties"] == false);
  CHECK(torus["required"] == json::array({"kind", "dims"}));
  CHECK(torus["properties"]["dims"]["items"]["minimum"] == 2);
  CHECK_FALSE(topology["oneOf"][0]["properties"].contains("dims"));
}

TEST_CASE("every schema default agrees with resolving an empty scenario", "[scenario][schema]") {
  const json schema = scenario_schema();
  const json resolved = resolve_scenario(json::object());
  const int compared = check_schema_defaults(schema, resolved, "");
  CHECK(compared > 50);
}

TEST_CASE("the Markdown key reference lists every key with its default", "[scenario][docs]") {
  const std::string md = dlsim::sim::spec::reference_markdown();
  CHECK_THAT(md, Catch::Contains("### `network`"));
  CHECK_THAT(md, Catch::Contains("| `network.bandwidth` | rate"));
  CHECK_THAT(md, Catch::Contains("`\"10Gbps\"`"));
  CHECK_THAT(md, Catch::Contains("| `network.links[].from` | integer >= 0 | required |"));
  CHECK_THAT(md, Catch::Contains("| `topology.dims` |"));
  CHECK_THAT(md, Catch::Contains("(topology.kind = grid or torus)"));
  CHECK_THAT(md, Catch::Contains("| `workers` | integer in [1, 16777216] | `4` |"));
  CHECK_THAT(md, Catch::Contains("the value of network.bandwidth"));
  // A key defined differently by different kinds gets one row per definition, each with
  // the kinds that take it so (fashion-mnist's path has a default, csv's is required).
  CHECK_THAT(md, Catch::Contains(
                     "| `data.path` | non-empty string | required | (data.source = csv) Path"));
  CHECK_THAT(md, Catch::Contains(
                     "| `data.path` | non-empty string | `\"/usr/share/datasets/fashion-mnist\"` | "
                     "(data.source = fashion-mnist)"));
  CHECK_THAT(md, Catch::Contains("| `model.init.kind` | one of: zeros, normal | `\"zeros\"` | "
                                 "(model.kind = least-squares or logistic or softmax)"));
  CHECK_THAT(md, Catch::Contains("| `model.init.kind` | one of: he, torch, normal | `\"he\"` | "
                                 "(model.kind = resnet)"));
  // Kinds whose definitions agree still share one row.
  CHECK_THAT(md, Catch::Contains("(topology.kind = grid or torus)"));
}

// The collective keys' docs name the all-reducible compressors by hand (the key tables
// are built by static initializers, possibly before the compressors register): they must
// name exactly the kinds whose compressors are all-reducible.
TEST_CASE("the collective docs name exactly the all-reducible compressors", "[scenario][docs]") {
  const std::string md = dlsim::sim::spec::reference_markdown();
  std::vector<std::string> reducible = dlsim::models::all_reducible_kinds();
  std::sort(reducible.begin(), reducible.end());
  const std::string marker = "all-reducible compressors only: ";
  int rows = 0;
  for (auto at = md.find(marker); at != std::string::npos; at = md.find(marker, at + 1)) {
    const std::size_t end = md.find(';', at);
    std::vector<std::string> named;
    for (std::size_t from = at + marker.size(); from < end;) {
      const std::size_t comma = std::min(md.find(", ", from), end);
      named.push_back(md.substr(from, comma - from));
      from = comma + 2;
    }
    std::sort(named.begin(), named.end());
    CHECK(named == reducible);
    ++rows;
  }
  CHECK(rows == 2);  // sgd's collective, and the one of the kinds built on it
}
