// `--threads 2` on the algorithms and options threads_test.cpp leaves out: AdaG-SGD and
// CHOCO-gossip on a static ring, CHOCO-SGD with a failing node, the compressed push-sum
// (choco-sgp, adag-sgp; static and time-varying), D-PSGD and SGP with a failing node, ring
// all-reduce, SVRG and ALPC-SVRG, CHOCO-SGD on an MLP with error-feedback qsgd and per-worker
// metrics. Each must give the metrics and totals of `--threads 1` byte for byte (the second
// computation is the truth). `make tsan` also runs this file under ThreadSanitizer, so every
// compute job kind here is checked for data races.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "run_helpers.hpp"
#include "sim/run/runner.hpp"
#include "sim/scenario/load.hpp"

using nlohmann::json;

namespace {

struct Outcome {
  std::string metrics;  // metrics.csv
  std::string workers;  // workers.csv (per-worker metrics), empty when not written
  json summary;
};

Outcome run_with(const json& doc, int threads) {
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  dlsim::sim::RunOptions options;
  options.out_dir = dlsim::test::fresh_dir("threads-algorithms");
  options.threads = threads;
  Outcome o;
  o.summary = dlsim::sim::run(prepared, options);
  o.metrics = dlsim::test::read_text(options.out_dir / "metrics.csv");
  if (std::filesystem::exists(options.out_dir / "workers.csv"))
    o.workers = dlsim::test::read_text(options.out_dir / "workers.csv");
  std::filesystem::remove_all(options.out_dir);
  return o;
}

// Every column but the last one (wall_s).
std::string without_wall(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

void require_same_for_one_and_two_threads(const json& doc) {
  const Outcome one = run_with(doc, 1);
  const Outcome two = run_with(doc, 2);
  REQUIRE(std::count(one.metrics.begin(), one.metrics.end(), '\n') > 2);
  CHECK(without_wall(one.metrics) == without_wall(two.metrics));
  CHECK(one.workers == two.workers);
  for (const char* key : {"events", "messages", "bits_total", "sim_time_s", "jobs", "job_phases"})
    CHECK(one.summary["totals"][key] == two.summary["totals"][key]);
  CHECK(two.summary["totals"]["threads"] == 2);
  CHECK(two.summary["totals"]["jobs"].get<std::uint64_t>() > 0);
}

json classification(int workers, json algorithm, int iterations) {
  return {{"workers", workers},
          {"seed", 7},
          {"data",
           {{"source", "synthetic-classification"},
            {"samples", 1200},
            {"features", 12},
            {"classes", 3},
            {"test_fraction", 0.25},
            {"partition", {{"kind", "dirichlet"}, {"alpha", 0.5}}}}},
          {"model", {{"kind", "softmax"}, {"l2", 1e-4}}},
          {"algorithm", algorithm},
          {"topology", {{"kind", "ring"}}},
          {"network", {{"latency", "10us"}, {"bandwidth", "1Gbps"}}},
          {"compute", {{"speed", "1GFLOPS"}, {"jitter", 0.3}}},
          {"stop", {{"iterations", iterations}}},
          {"metrics", {{"every", {{"iterations", 4}}}, {"test", true}}}};
}

json gossip(const char* kind) {
  return {{"kind", kind},
          {"step_size", 0.1},
          {"batch_size", 8},
          {"consensus_step", 0.3},
          {"compressor", {{"kind", "top-k"}, {"ratio", 0.5}}}};
}

}  // namespace

TEST_CASE("AdaG-SGD and CHOCO-gossip on a ring: identical for 1 and 2 threads", "[threads]") {
  require_same_for_one_and_two_threads(classification(6, gossip("adag-sgd"), 16));
  json choco_gossip = gossip("choco-gossip");
  choco_gossip.erase("step_size");
  choco_gossip.erase("batch_size");
  json averaging = classification(6, choco_gossip, 16);
  averaging["data"] = {{"source", "none"}};
  averaging["model"] = {{"kind", "consensus"}, {"dimension", 40}};
  averaging["metrics"] = {{"every", {{"iterations", 4}}}};
  require_same_for_one_and_two_threads(averaging);
}

TEST_CASE("CHOCO-SGD with a failing node: identical for 1 and 2 threads", "[threads]") {
  for (const char* order : {"adagossip", "choco-paper"}) {
    INFO(order);
    json algorithm = gossip("choco-sgd");
    algorithm["order"] = order;
    json doc = classification(6, algorithm, 16);
    doc["network"]["faults"] = {{"fail", {{{"node", 2}, {"at", 0.0001}}}},
                                {"fail_timeout", "50us"}};
    require_same_for_one_and_two_threads(doc);
    // The node did fail mid-run and both its neighbours noticed.
    const json failed = run_with(doc, 2).summary["failures"]["nodes"][0];
    CHECK(failed["iterations_done"].get<int>() > 0);
    CHECK(failed["iterations_done"].get<int>() < 16);
    CHECK(failed["detected_by"].size() == 2);
  }
}

TEST_CASE("compressed push-sum (choco-sgp, adag-sgp): identical for 1 and 2 threads", "[threads]") {
  for (const char* kind : {"choco-sgp", "adag-sgp"}) {
    INFO(kind);
    json algorithm = gossip(kind);
    algorithm["compressor"] = {{"kind", "qsgd"}, {"levels", 16}};
    json doc = classification(6, algorithm, 16);
    doc["topology"] = {{"kind", "directed-exponential"}, {"weights", "uniform"}};
    require_same_for_one_and_two_threads(doc);
  }
}

TEST_CASE("compressed push-sum on a time-varying graph: identical for 1 and 2 threads",
          "[threads]") {
  // One stream per edge: several encodings in one job, messages from changing in-neighbours.
  for (const char* kind : {"choco-sgp", "adag-sgp"}) {
    INFO(kind);
    json doc = classification(6, gossip(kind), 16);
    doc["topology"] = {{"kind", "one-peer-exponential"}, {"weights", "uniform"}};
    require_same_for_one_and_two_threads(doc);
  }
}

TEST_CASE("D-PSGD and SGP with a failing node: identical for 1 and 2 threads", "[threads]") {
  // The mixing job adds a failed neighbour's term among the decoded messages, in order.
  for (const char* kind : {"dpsgd", "sgp"}) {
    INFO(kind);
    json doc = classification(6, {{"kind", kind}, {"step_size", 0.1}, {"batch_size", 16}}, 16);
    doc["network"]["faults"] = {{"fail", {{{"node", 2}, {"at", 0.0001}}}},
                                {"fail_timeout", "50us"}};
    require_same_for_one_and_two_threads(doc);
    const json failed = run_with(doc, 2).summary["failures"]["nodes"][0];
    CHECK(failed["iterations_done"].get<int>() > 0);
    CHECK(failed["iterations_done"].get<int>() < 16);
  }
}

TEST_CASE("ring all-reduce, SVRG and ALPC-SVRG: identical for 1 and 2 threads", "[threads]") {
  json ring = classification(
      4, {{"kind", "sgd"}, {"collective", "ring-allreduce"}, {"step_size", 0.1}, {"batch_size", 8}},
      12);
  ring.erase("topology");
  require_same_for_one_and_two_threads(ring);
  for (const char* kind : {"svrg", "alpc-svrg"}) {
    INFO(kind);
    json doc = classification(4,
                              {{"kind", kind},
                               {"collective", "parameter-server"},
                               {"step_size", 0.05},
                               {"batch_size", 8}},
                              12);
    doc.erase("topology");
    require_same_for_one_and_two_threads(doc);
  }
}

TEST_CASE(
    "CHOCO-SGD on an MLP, error-feedback qsgd, per-worker metrics: identical for 1 and 2 threads",
    "[threads]") {
  json algorithm = gossip("choco-sgd");
  algorithm["momentum"] = 0.9;
  algorithm["compressor"] = {{"kind", "qsgd"}, {"levels", 4}, {"error_feedback", true}};
  json doc = classification(5, algorithm, 12);
  doc["model"] = {{"kind", "mlp"}, {"hidden", {8}}, {"l2", 1e-3}};
  doc["metrics"]["per_worker"] = true;
  require_same_for_one_and_two_threads(doc);
}

// Models without math send the process's shared sized payloads (sim/network/sized_payload.hpp):
// D-PSGD in fp32, CHOCO-SGD with top-k (its differences) and a parameter server (the fp32
// downlink), with one thread and with a pool (whose jobs without math run on the engine
// thread: Engine::set_jobs_without_math). Each message carries exactly its size: 32 bits per
// coordinate for fp32, k(32 + ceil(log2 d)) = 10 · 42 bits for top-k keeping 10 of 1,000.
TEST_CASE("profile models' sized payloads: identical for 1 and 2 threads, sizes exact",
          "[threads]") {
  const auto profile = [](json algorithm) {
    return json{{"workers", 6},
                {"seed", 3},
                {"model", {{"kind", "profile"}, {"parameters", 1000}, {"compute_time", "1ms"}}},
                {"algorithm", algorithm},
                {"topology", {{"kind", "ring"}}},
                {"network", {{"latency", "5us"}, {"bandwidth", "1Gbps"}}},
                {"compute", {{"jitter", 0.2}}},
                {"stop", {{"iterations", 8}}},
                {"metrics", {{"every", {{"iterations", 2}}}, {"test", false}}}};
  };
  SECTION("D-PSGD, fp32: 32,000 bits a message") {
    const json doc = profile({{"kind", "dpsgd"}});
    require_same_for_one_and_two_threads(doc);
    const Outcome o = run_with(doc, 2);
    const auto messages = o.summary["totals"]["messages"].get<std::uint64_t>();
    CHECK(messages == 6 * 2 * 8);
    CHECK(o.summary["totals"]["bits_total"].get<std::uint64_t>() == messages * 32000);
  }
  SECTION("CHOCO-SGD, top-k") {
    json algorithm = gossip("choco-sgd");
    algorithm["compressor"] = {{"kind", "top-k"}, {"k", 10}};
    require_same_for_one_and_two_threads(profile(algorithm));
    const Outcome o = run_with(profile(algorithm), 2);
    const auto messages = o.summary["totals"]["messages"].get<std::uint64_t>();
    CHECK(messages >= 6 * 2 * 8);
    CHECK(o.summary["totals"]["bits_total"].get<std::uint64_t>() == messages * 420);
  }
  SECTION("parameter server") {
    json doc = profile({{"kind", "sgd"}, {"collective", "parameter-server"}, {"step_size", 0.05}});
    doc.erase("topology");
    require_same_for_one_and_two_threads(doc);
  }
}
