// Malformed scenarios: every one is refused with an InputError naming the JSON path
// of the problem and saying what is wrong (docs/design.md §4).
#include <catch2/catch.hpp>

#include "scenario_helpers.hpp"
#include "sim/scenario/load.hpp"

using dlsim::sim::resolve_scenario;
using dlsim::sim::to_scenario;
using namespace dlsim::test;

TEST_CASE("keys are checked strictly, at any depth", "[scenario][errors]") {
  check_rejected("[1, 2]", "scenario", "must be an object");
  check_rejected(R"({"wrokers": 4})", "wrokers",
                 "unknown key \"wrokers\" (did you mean \"workers\"?)");
  check_rejected(R"({"colour": 4})", "colour", "expected one of: name, description, seed");
  check_rejected(R"({"network": {"bandwith": "1Gbps"}})", "network.bandwith",
                 "unknown key \"bandwith\" (did you mean \"bandwidth\"?)");
  check_rejected(R"({"algorithm": {"compressor": {"kindd": "none"}}})",
                 "algorithm.compressor.kindd", "did you mean \"kind\"?");
  check_rejected(R"({"network": {"links": [{"from": 0, "to": 1}, {"form": 1, "to": 2}]}})",
                 "network.links[1].form", "did you mean \"from\"?");
  check_rejected(R"({"data": {"partition": {"kind": "iid", "alpha": 0.5}}})",
                 "data.partition.alpha", "unknown key \"alpha\"");
}

TEST_CASE("keys of another kind are rejected and say which kind takes them", "[scenario][errors]") {
  check_rejected(R"({"topology": {"kind": "ring", "dims": [2, 2]}})", "topology.dims",
                 "unknown key \"dims\" for kind \"ring\" (valid for kind: grid, torus)");
  check_rejected(
      R"({"workers": 4, "algorithm": {"kind": "dpsgd", "collective": "allgather"}})",
      "algorithm.collective",
      "for kind \"dpsgd\" (valid for kind: alpc-svrg, ef-sgd, lpc-svrg, qsgd, sgd, svrg)");
  check_rejected(R"({"data": {"source": "csv", "path": "x.csv", "samples": 10}})", "data.samples",
                 "for source \"csv\"");
  check_rejected(R"({"model": {"kind": "profile", "parameters": 10, "data": {}, "l2": 0.1}})",
                 "model.data", "unknown key \"data\"");
  check_rejected(R"({"model": {"kind": "profile", "parameters": 10, "l2": 0.1}})", "model.l2",
                 "for kind \"profile\" (valid for kind: least-squares, logistic, softmax, mlp, "
                 "lenet5, resnet, cnn)");
  check_rejected(
      R"({"model": {"kind": "profile", "parameters": 10}, "data": {"test_fraction": 0.1}})",
      "data.test_fraction", "for source \"none\"");
  check_rejected(R"({"model": {"init": {"kind": "zeros", "std": 1}}})", "model.init.std",
                 "for kind \"zeros\" (valid for kind: normal)");
}

TEST_CASE("wrong types are rejected at every depth", "[scenario][errors]") {
  check_rejected(R"({"workers": "8"})", "workers", "must be an integer, got \"8\"");
  check_rejected(R"({"workers": 4.5})", "workers", "must be an integer, got 4.5");
  check_rejected(R"({"name": 3})", "name", "must be a string, got 3");
  check_rejected(R"({"data": "synthetic"})", "data", "must be an object, got \"synthetic\"");
  check_rejected(R"({"model": {"bias": "yes"}})", "model.bias", "must be a boolean");
  check_rejected(R"({"metrics": {"test": 1}})", "metrics.test", "must be a boolean");
  check_rejected(R"({"topology": {"kind": 3}})", "topology.kind", "must be a string, got 3");
  check_rejected(R"({"topology": {"kind": "torus", "dims": "4x4"}})", "topology.dims",
                 "must be an array");
  check_rejected(R"({"network": {"links": {}}})", "network.links", "must be an array, got {}");
  check_rejected(R"({"network": {"links": [5]}})", "network.links[0]", "must be an object, got 5");
  check_rejected(R"({"network": {"nodes": [{"id": 1, "egress": true}]}})",
                 "network.nodes[0].egress", "expected a rate");
  check_rejected(R"({"network": {"latency": [1]}})", "network.latency", "expected a time");
  check_rejected(R"({"compute": {"per_worker": [1, "2"]}})", "compute.per_worker[1]",
                 "must be a number");
  check_rejected(R"({"stop": {"target_loss": "low"}})", "stop.target_loss", "must be a number");
}

TEST_CASE("values out of range are rejected", "[scenario][errors]") {
  check_rejected(R"({"workers": 0})", "workers", "must be in [1, 16777216], got 0");
  check_rejected(R"({"workers": 16777217})", "workers", "must be in [1, 16777216]");
  check_rejected(R"({"workers": 1e20})", "workers", "must be in [1, 16777216], got 1e+20");
  check_rejected(R"({"data": {"samples": 18446744073709551615}})", "data.samples",
                 "integer out of range");
  check_rejected(R"({"seed": -1})", "seed", "must be >= 0, got -1");
  check_rejected(R"({"network": {"bandwidth": "0Gbps"}})", "network.bandwidth",
                 "must be > 0, got \"0Gbps\"");
  check_rejected(R"({"network": {"bandwidth": -5}})", "network.bandwidth", "must be > 0, got -5");
  check_rejected(R"({"network": {"latency": "-5us"}})", "network.latency",
                 "must be >= 0, got \"-5us\"");
  check_rejected(R"({"network": {"bandwidth": "10 furlongs"}})", "network.bandwidth",
                 "unknown rate unit \"furlongs\"");
  check_rejected(R"({"network": {"header": "1.5b"}})", "network.header", "whole number of bits");
  check_rejected(R"({"network": {"nic": {"ingress": "0bps"}}})", "network.nic.ingress",
                 "must be > 0");
  check_rejected(R"({"network": {"links": [{"from": 0, "to": 1, "latency": "-1ms"}]}})",
                 "network.links[0].latency", "must be >= 0");
  check_rejected(R"({"algorithm": {"batch_size": 0}})", "algorithm.batch_size",
                 "must be >= 1, got 0");
  check_rejected(R"({"algorithm": {"momentum": 1.0}})", "algorithm.momentum",
                 "must be in [0, 1), got 1.0");
  check_rejected(R"({"algorithm": {"step_size": 0}})", "algorithm.step_size", "must be > 0");
  check_rejected(R"({"data": {"test_fraction": 1}})", "data.test_fraction", "must be in [0, 1)");
  check_rejected(R"({"data": {"condition": 0.5}})", "data.condition", "must be >= 1");
  check_rejected(R"({"compute": {"speed": "0GFLOPS"}})", "compute.speed", "must be > 0");
  check_rejected(R"({"compute": {"per_worker": [1, 0, 1, 1]}})", "compute.per_worker[1]",
                 "must be > 0, got 0");
  check_rejected(R"({"stop": {"bits": "0B"}})", "stop.bits", "must be > 0");
  check_rejected(R"({"stop": {"sim_time": "0s"}})", "stop.sim_time", "must be > 0");
  check_rejected(R"({"model": {"init": {"kind": "normal", "std": 0}}})", "model.init.std",
                 "must be > 0");
  check_rejected(R"({"topology": {"kind": "torus", "dims": [1, 4]}, "workers": 4})",
                 "topology.dims[0]", "must be >= 2, got 1");
  check_rejected(R"({"topology": {"kind": "torus", "dims": []}})", "topology.dims",
                 "must not be empty");
  check_rejected(R"({"output": {"dir": ""}})", "output.dir", "must not be empty");
  check_rejected(R"({"sweep": {"grid": {"network.bandwidth": []}}})",
                 "sweep.grid[\"network.bandwidth\"]", "must not be empty");
  check_rejected(R"({"sweep": {"repeat": 0}})", "sweep.repeat", "must be >= 1");
}

TEST_CASE("unknown kinds and enum values list what is accepted", "[scenario][errors]") {
  check_rejected(R"({"topology": {"kind": "rign"}})", "topology.kind",
                 "unknown kind \"rign\"; expected one of: complete, directed-exponential, "
                 "directed-ring, dyck, edge-list, erdos-renyi, exponential, grid, hypercube, "
                 "one-peer-exponential, random-matching, random-regular, ring, small-world, "
                 "star, torus (did you mean \"ring\"?)");
  check_rejected(R"({"data": {"source": "cvs"}})", "data.source",
                 "unknown source \"cvs\"; expected one of: synthetic-regression, "
                 "synthetic-classification, csv, libsvm, cifar10, fashion-mnist, none");
  check_rejected(R"({"model": {"kind": "mpl"}})", "model.kind",
                 "expected one of: least-squares, logistic, softmax, mlp, lenet5, resnet, "
                 "cnn, consensus, profile");
  check_rejected(R"({"algorithm": {"kind": "chocco-sgd"}})", "algorithm.kind",
                 "unknown kind \"chocco-sgd\"");
  check_rejected(R"({"algorithm": {"compressor": {"kind": "zip"}}})", "algorithm.compressor.kind",
                 "expected one of: fp16, lpc, none, qsgd, random-k, sign, terngrad, top-k");
  check_rejected(R"({"data": {"partition": {"kind": "dirichlet-ish"}}})", "data.partition.kind",
                 "expected one of: iid, dirichlet, shards, sorted");
  check_rejected(R"({"model": {"init": {"kind": "he"}}})", "model.init.kind",
                 "expected one of: zeros, normal");
  check_rejected(R"({"network": {"sharing": "fiar"}})", "network.sharing",
                 "unknown value \"fiar\"; expected one of: fair, fifo (did you mean \"fair\"?)");
  check_rejected(R"({"algorithm": {"collective": "allreduce"}})", "algorithm.collective",
                 "expected one of: parameter-server, allgather, ring-allreduce");
  check_rejected(R"({"topology": {"weights": "metropolis-hastings"}})", "topology.weights",
                 "unknown value");
}

TEST_CASE("required keys and key counts", "[scenario][errors]") {
  check_rejected(R"({"data": {"source": "csv"}})", "data.path",
                 "missing required key \"path\" for source \"csv\"");
  check_rejected(R"({"model": {"kind": "profile"}})", "model.parameters",
                 "missing required key \"parameters\"");
  check_rejected(R"({"topology": {"kind": "torus"}})", "topology.dims",
                 "missing required key \"dims\"");
  check_rejected(R"({"network": {"nodes": [{"egress": "1Gbps"}]}})", "network.nodes[0].id",
                 "missing required key \"id\"");
  check_rejected(R"({"network": {"links": [{"from": 0}]}})", "network.links[0].to",
                 "missing required key \"to\"");
  check_rejected(R"({"stop": {}})", "stop", "must have at least one of: epochs, iterations");
  check_rejected(R"({"metrics": {"every": {"iterations": 10, "epochs": 1}}})", "metrics.every",
                 "must have exactly one of: iterations, epochs, sim_time; got 2");
  check_rejected(R"({"metrics": {"every": {}}})", "metrics.every", "exactly one of");
}

TEST_CASE("impossible combinations are rejected by to_scenario", "[scenario][errors]") {
  check_rejected(R"({"model": {"kind": "profile", "parameters": 10}, "stop": {"target_loss": 1}})",
                 "stop.target_loss", "needs a model with a loss");
  check_rejected(R"({"algorithm": {"compressor": {"kind": "lpc", "bits": 33}}})",
                 "algorithm.compressor.bits", "must be in [2, 32]");
  check_rejected(R"({"workers": 16, "topology": {"kind": "torus", "dims": [4, 3]}})",
                 "topology.dims", "product of dims must equal workers (16), got [4,3] = 12");
  check_rejected(
      R"({"workers": 4, "topology": {"kind": "torus", "dims": [1000000, 1000000, 1000000]}})",
      "topology.dims", "more than 4");
  check_rejected(R"({"workers": 4, "compute": {"per_worker": [1, 2, 3]}})", "compute.per_worker",
                 "one entry per worker (4), got 3");
  check_rejected(R"({"workers": 4, "network": {"nodes": [{"id": 9}]}})", "network.nodes[0].id",
                 "must be a node id in [0, 4], got 9");
  check_rejected(
      R"({"workers": 4, "algorithm": {"kind": "dpsgd"}, "network": {"nodes": [{"id": 4}]}})",
      "network.nodes[0].id", "parameter server exists only with collective");
  check_rejected(
      R"({"workers": 4, "algorithm": {"collective": "allgather"}, "network": {"links": [{"from": 4, "to": 0}]}})",
      "network.links[0].from", "must be a node id in [0, 3], got 4");
  check_rejected(R"({"network": {"nodes": [{"id": 1}, {"id": 2}, {"id": 1}]}})",
                 "network.nodes[2].id", "duplicate node id 1 (also in network.nodes[0])");
  check_rejected(R"({"network": {"links": [{"from": 2, "to": 2}]}})", "network.links[0].to",
                 "must differ from \"from\"");
  check_rejected(R"({"network": {"model": "lv08", "sharing": "fifo"}})", "network.model",
                 "lv08 shares bandwidth by weighted max-min: it needs network.sharing fair");
  check_rejected(R"({"network": {"model": "lv07"}})", "network.model",
                 "expected one of: cm02, lv08");
  check_rejected(R"({"network": {"links": [{"from": 0, "to": 1}, {"from": 0, "to": 7}]}})",
                 "network.links[1].to", "must be a node id in [0, 4], got 7");
  check_rejected(R"({"network": {"links": [{"from": 0, "to": 1}, {"from": 0, "to": 1}]}})",
                 "network.links[1]", "duplicate link 0 -> 1");
  check_rejected(R"({"algorithm": {"nesterov": true}})", "algorithm.nesterov",
                 "requires algorithm.momentum > 0");
  check_rejected(R"({"workers": 1, "algorithm": {"kind": "dpsgd"}})", "workers",
                 "at least 2 workers");
  check_rejected(R"({"data": {"source": "none"}})", "data.source", "needs data");
  check_rejected(
      R"({"model": {"kind": "profile", "parameters": 5}, "data": {"source": "synthetic-regression"}})",
      "data.source", "must be \"none\" for model kind \"profile\"");
  check_rejected(
      R"({"data": {"source": "csv", "path": "a.csv", "test_path": "b.csv", "test_fraction": 0.2}})",
      "data.test_fraction", "must be 0 when data.test_path");
  check_rejected(R"({"model": {"kind": "profile", "parameters": 5}, "stop": {"epochs": 1}})",
                 "stop.epochs", "epochs need data");
  check_rejected(
      R"({"model": {"kind": "profile", "parameters": 5}, "metrics": {"every": {"epochs": 1}}})",
      "metrics.every.epochs", "epochs need data");

  SECTION("ring all-reduce needs an all-reducible compressor") {
    json r = resolve_scenario(json::parse(R"({"algorithm": {"collective": "ring-allreduce"}})"));
    CHECK_NOTHROW(to_scenario(r));
    r["algorithm"]["compressor"]["kind"] = "top-k";
    r["algorithm"]["compressor"]["ratio"] = 0.9;  // a valid top-k (read when loading)
    const Outcome o = outcome_of([&] { to_scenario(r); });
    CHECK(o.where == "algorithm.collective");
    CHECK_THAT(o.problem,
               Catch::Contains("needs an all-reducible compressor (fp16 or none), got \"top-k\""));
  }
  SECTION("dpsgd needs an uncompressed message") {
    json r = resolve_scenario(json::parse(R"({"algorithm": {"kind": "dpsgd"}})"));
    CHECK_NOTHROW(to_scenario(r));
    r["algorithm"]["compressor"]["kind"] = "qsgd";
    const Outcome o = outcome_of([&] { to_scenario(r); });
    CHECK(o.where == "algorithm.compressor.kind");
  }
  SECTION("a document that was not resolved") {
    const Outcome o = outcome_of([] { to_scenario(json::parse(R"({"workers": 4})")); });
    CHECK(o.where == "scenario");
    CHECK_THAT(o.problem, Catch::Contains("not a resolved scenario"));
  }
}

TEST_CASE("valid combinations at the edges are accepted", "[scenario]") {
  CHECK_NOTHROW(load_scenario(
      json::parse(R"({"workers": 12, "topology": {"kind": "torus", "dims": [2, 3, 2]}})")));
  CHECK_NOTHROW(load_scenario(json::parse(R"({"workers": 1})")));
  CHECK_NOTHROW(
      load_scenario(json::parse(R"({"algorithm": {"momentum": 0.99, "nesterov": true}})")));
  CHECK_NOTHROW(load_scenario(json::parse(
      R"({"model": {"kind": "profile", "parameters": 1}, "metrics": {"every": {"sim_time": 0.5}}, "stop": {"sim_time": "1s"}})")));
  CHECK_NOTHROW(load_scenario(json::parse(R"({"workers": 1e3, "stop": {"iterations": 1.0e2}})")));
  CHECK_NOTHROW(load_scenario(json::parse(R"({"compute": {"per_worker": [1, 4, 1, 0.5]}})")));
}

// ---------------------------------------------------------------- schema
