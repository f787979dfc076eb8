// D-PSGD on every topology kind, end to end through the runner (`dlsim run`'s path):
//   - training: on noise-free least squares every worker's shard is consistent with
//     w*, so gossip plus local steps must reach the optimum on any connected kind;
//   - timing: with `profile` models a synchronous gossip round on these symmetric
//     graphs takes c + α + d_max·S/β (the busiest port carries d_max full models,
//     fairly shared), and every node sends one message per out-neighbour per round;
//   - summary.json carries the facts `dlsim topology --json` prints;
//   - weights that cannot work for dpsgd (uniform on a star) are refused.

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "run_helpers.hpp"
#include "scenario_helpers.hpp"

using nlohmann::json;

namespace {

json with_kind(const std::string& kind) {
  json t = {{"kind", kind}};
  if (kind == "torus" || kind == "grid") t["dims"] = {4, 4};
  if (kind == "random-regular") t["degree"] = 3;
  if (kind == "erdos-renyi") t["p"] = 0.3;
  if (kind == "small-world") {
    t["k"] = 4;
    t["p"] = 0.2;
  }
  if (kind == "edge-list") {
    // A ring with two chords.
    const auto path = dlsim::test::scratch_path("topology-runs-edges");
    std::ofstream out(path);
    out << "# ring of 16 plus chords\n";
    for (int i = 0; i < 16; ++i) out << i << " " << (i + 1) % 16 << "\n";
    out << "0 8\n4 12\n";
    t["path"] = path.string();
  }
  return t;
}

const std::vector<std::string> kAllKinds = {
    "complete",        "star",           "ring",
    "torus",           "grid",           "hypercube",
    "exponential",     "random-regular", "erdos-renyi",
    "small-world",     "edge-list",      "one-peer-exponential",
    "random-matching", "directed-ring",  "directed-exponential"};

}  // namespace

TEST_CASE("D-PSGD reaches the least-squares optimum on every kind", "[topology][runs]") {
  for (const std::string& kind : kAllKinds) {
    INFO(kind);
    const json s = {{"workers", 16},
                    {"seed", 3},
                    {"data",
                     {{"source", "synthetic-regression"},
                      {"samples", 480},
                      {"features", 6},
                      {"noise", 0.0},
                      {"condition", 3}}},
                    {"algorithm", {{"kind", "dpsgd"}, {"step_size", 0.1}, {"batch_size", 30}}},
                    {"topology", with_kind(kind)},
                    {"stop", {{"iterations", 300}}},
                    {"metrics", {{"every", {{"iterations", 100}}}}}};
    const auto out = dlsim::test::run_scenario(s, "topo-train");
    const json& final_row = out.summary["final"];
    const json& facts = out.summary["topology"];
    CHECK(final_row["iteration"] == 300);
    // metrics.csv row 1 is iteration 0; column 7 is train_loss.
    const std::string first_row = out.metrics_csv.substr(out.metrics_csv.find('\n') + 1);
    std::vector<std::string> cells;
    std::istringstream fields(first_row.substr(0, first_row.find('\n')));
    for (std::string cell; std::getline(fields, cell, ',');) cells.push_back(cell);
    const double initial_loss = std::stod(cells.at(6));
    CHECK(initial_loss > 1);
    CHECK(final_row["train_loss"].get<double>() < 1e-6 * initial_loss);
    CHECK(final_row["consensus_distance"].get<double>() < 1e-6 * initial_loss);
    CHECK(facts["kind"] == kind);
    CHECK(facts["nodes"] == 16);
    CHECK(facts["connected"] == true);
    CHECK(facts["spectral_gap"].get<double>() > 0);
    for (const char* key : {"edges", "directed", "time_varying", "degree_min", "degree_max",
                            "diameter", "weights", "lambda2", "lambda_min"}) {
      CHECK(facts.contains(key));
    }
  }
}

TEST_CASE("gossip rounds on every shape take c + alpha + d_max·S/beta", "[topology][runs]") {
  constexpr double kAlpha = 20e-6, kBeta = 1e9, kHeaderBits = 512, kCompute = 3e-3;
  constexpr int kIterations = 4, kWorkers = 16;
  const std::int64_t parameters = 100'000;
  const double s_bits = 32.0 * parameters + kHeaderBits;
  struct Case {
    std::string kind;
    int busiest;         // models through the busiest port per round
    int arcs_per_round;  // messages per round
  };
  for (const Case& c : {Case{"star", 15, 30}, Case{"complete", 15, 240}, Case{"hypercube", 4, 64},
                        Case{"exponential", 7, 112}, Case{"one-peer-exponential", 1, 16},
                        Case{"random-matching", 1, 16}, Case{"directed-ring", 1, 16},
                        Case{"directed-exponential", 4, 64}}) {
    INFO(c.kind);
    const json s = {
        {"workers", kWorkers},
        {"model", {{"kind", "profile"}, {"parameters", parameters}, {"compute_time", "3ms"}}},
        {"algorithm", {{"kind", "dpsgd"}}},
        {"topology", with_kind(c.kind)},
        {"network", {{"latency", "20us"}, {"bandwidth", "1Gbps"}, {"header", "64B"}}},
        {"stop", {{"iterations", kIterations}}},
        {"metrics", {{"every", {{"iterations", 1}}}}}};
    const auto out = dlsim::test::run_scenario(s, "topo-time");
    CHECK(out.summary["final"]["time_s"].get<double>() ==
          Approx(kIterations * (kCompute + kAlpha + c.busiest * s_bits / kBeta)).epsilon(1e-9));
    CHECK(out.summary["totals"]["messages"].get<int>() == kIterations * c.arcs_per_round);
  }
}

TEST_CASE("dpsgd refuses weights that are not doubly stochastic", "[topology][runs]") {
  using dlsim::test::check_rejected;
  check_rejected(
      R"({"workers": 8, "algorithm": {"kind": "dpsgd"},
          "topology": {"kind": "star", "weights": "uniform"}})",
      "topology.weights",
      "dpsgd needs doubly stochastic mixing weights, but uniform weights on star are only "
      "row-stochastic (degrees 1..7; uniform weights are doubly stochastic only on regular "
      "graphs); use metropolis or max-degree");
  // The same weights are fine on a regular graph, and for centralized algorithms.
  CHECK_NOTHROW(dlsim::sim::load_scenario(json::parse(
      R"({"workers": 8, "algorithm": {"kind": "dpsgd"},
          "topology": {"kind": "ring", "weights": "uniform"}})")));
  CHECK_NOTHROW(dlsim::sim::load_scenario(
      json::parse(R"({"workers": 8, "topology": {"kind": "star", "weights": "uniform"}})")));
  // Graph errors surface at the key that caused them.
  check_rejected(R"({"workers": 12, "algorithm": {"kind": "dpsgd"},
                     "topology": {"kind": "hypercube"}})",
                 "topology.kind", "hypercube needs workers to be a power of 2, got 12");
  check_rejected(R"({"workers": 7, "algorithm": {"kind": "dpsgd"},
                     "topology": {"kind": "random-matching"}})",
                 "workers", "random-matching needs an even number of workers, got 7");
  check_rejected(R"({"workers": 7, "algorithm": {"kind": "dpsgd"},
                     "topology": {"kind": "random-regular", "degree": 3}})",
                 "topology.degree", "workers x degree must be even");
  check_rejected(R"({"workers": 6, "algorithm": {"kind": "dpsgd"},
                     "topology": {"kind": "grid", "dims": [2, 2]}})",
                 "topology.dims", "product of dims must equal workers (6)");
}

TEST_CASE("random topologies follow the scenario seed", "[topology][runs]") {
  const auto lambda2 = [](int seed) {
    const json s = {{"workers", 40},
                    {"seed", seed},
                    {"model", {{"kind", "profile"}, {"parameters", 10}}},
                    {"algorithm", {{"kind", "dpsgd"}}},
                    {"topology", {{"kind", "random-regular"}, {"degree", 3}}},
                    {"stop", {{"iterations", 1}}}};
    return dlsim::test::run_scenario(s, "topo-seed").summary["topology"]["lambda2"].get<double>();
  };
  CHECK(lambda2(1) == lambda2(1));
  CHECK(lambda2(1) != lambda2(2));
}
