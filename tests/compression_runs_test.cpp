// Compression through the runner: bits_total and bytes_wire count exactly the encoded
// messages (docs/algorithms.md §1 sizes times transfers), the receivers use the decoded
// vectors (training with a compressor differs from, but still approaches, fp32 training),
// profile models are charged bits_for(d), and the scenario refuses what cannot work.
#include <catch2/catch.hpp>

#include <cmath>

#include "run_helpers.hpp"
#include "sim/scenario/input_error.hpp"

using nlohmann::json;

namespace {

json regression(json algorithm, int iterations = 40, int workers = 4) {
  return json{{"workers", workers},
              {"seed", 5},
              {"data",
               {{"source", "synthetic-regression"},
                {"samples", 800},
                {"features", 8},
                {"noise", 0.0},
                {"condition", 2}}},
              {"model", {{"kind", "least-squares"}}},
              {"algorithm", algorithm},
              {"network", {{"header", "40B"}}},
              {"stop", {{"iterations", iterations}}},
              {"metrics", {{"every", {{"iterations", 10}}}}}};
}

json sgd(const std::string& collective, json compressor) {
  return {{"kind", "sgd"},
          {"collective", collective},
          {"step_size", 0.1},
          {"batch_size", 50},
          {"compressor", compressor}};
}

std::uint64_t ceil_div8(std::uint64_t bits) {
  return (bits + 7) / 8;
}

std::string error_path(const json& doc) {
  try {
    dlsim::sim::load_scenario(doc);
  } catch (const dlsim::sim::InputError& e) {
    return e.where();
  }
  return "";
}

}  // namespace

TEST_CASE(
    "parameter server with top-k: bits_total = iterations x (n k(32 + ceil(log2 d)) + n 32d)") {
  // d = 8 features + bias = 9; ratio 0.5: k = round(4.5) = 5; ⌈log2 9⌉ = 4
  const std::uint64_t d = 9, k = 5, n = 4, iterations = 40, header = 320;
  const auto out = dlsim::test::run_scenario(
      regression(sgd("parameter-server", {{"kind", "top-k"}, {"ratio", 0.5}}), 40), "ps-topk");
  const std::uint64_t uplink = k * (32 + 4), downlink = 32 * d;
  const auto& totals = out.summary["totals"];
  CHECK(totals["bits_total"].get<std::uint64_t>() == iterations * n * (uplink + downlink));
  CHECK(totals["bytes_wire"].get<std::uint64_t>() ==
        iterations * n * (ceil_div8(uplink + header) + ceil_div8(downlink + header)));
  CHECK(totals["messages"].get<std::uint64_t>() == iterations * 2 * n);
}

TEST_CASE("allgather with lpc and qsgd: every broadcast costs n-1 transfers of the exact size") {
  const std::uint64_t d = 9, n = 4, iterations = 20, header = 320;
  struct Case {
    json compressor;
    std::uint64_t bits;
  };
  const std::vector<Case> cases = {
      {{{"kind", "lpc"}, {"bits", 3}, {"clip", "max"}}, 32 + d * 3},
      {{{"kind", "lpc"}, {"bits", "auto"}, {"bucket", 4}}, 3 * 32 + d * 3},  // s = 2: 1 + 2 bits
      {{{"kind", "qsgd"}, {"levels", 7}}, 32 + d * 4},
      {{{"kind", "sign"}, {"error_feedback", true}}, 32 + d},
      {{{"kind", "fp16"}}, 16 * d},
      {{{"kind", "random-k"}, {"k", 3}, {"unbiased", true}}, 64 + 3 * 32},
  };
  for (const auto& [compressor, bits] : cases) {
    INFO(compressor.dump());
    const auto out = dlsim::test::run_scenario(
        regression(sgd("allgather", compressor), int(iterations)), "allgather-compressed");
    const auto& totals = out.summary["totals"];
    const std::uint64_t transfers = iterations * n * (n - 1);
    CHECK(totals["bits_total"].get<std::uint64_t>() == transfers * bits);
    CHECK(totals["bytes_wire"].get<std::uint64_t>() == transfers * ceil_div8(bits + header));
  }
}

TEST_CASE("qsgd with Elias coding charges the real, data-dependent sizes") {
  const auto fixed = dlsim::test::run_scenario(
      regression(sgd("allgather", {{"kind", "qsgd"}, {"levels", 3}}), 20), "elias-fixed");
  const auto elias = dlsim::test::run_scenario(
      regression(sgd("allgather", {{"kind", "qsgd"}, {"levels", 3}, {"coding", "elias"}}), 20),
      "elias");
  // same random streams, same decoded vectors: identical training, different bits
  CHECK(fixed.summary["final"]["train_loss"] == elias.summary["final"]["train_loss"]);
  const auto fixed_bits = fixed.summary["totals"]["bits_total"].get<std::uint64_t>();
  const auto elias_bits = elias.summary["totals"]["bits_total"].get<std::uint64_t>();
  CHECK(fixed_bits == 20 * 12 * (32 + 9 * 3));
  CHECK(elias_bits != fixed_bits);
  CHECK(elias_bits % 3 == 0);  // each broadcast reaches 3 workers
}

TEST_CASE("receivers use the decoded vectors: compressed training differs but still converges") {
  auto loss = [](const json& compressor) {
    const auto out =
        dlsim::test::run_scenario(regression(sgd("parameter-server", compressor), 200), "converge");
    return out.summary["final"]["train_loss"].get<double>();
  };
  const double start = [] {
    const auto out = dlsim::test::run_scenario(
        regression(sgd("parameter-server", {{"kind", "none"}}), 1), "start");
    return out.summary["final"]["train_loss"].get<double>();
  }();
  const double exact = loss({{"kind", "none"}});
  for (const json& c :
       {json{{"kind", "top-k"}, {"ratio", 0.7}, {"error_feedback", true}},
        json{{"kind", "qsgd"}, {"levels", 4}},
        json{{"kind", "lpc"}, {"bits", 4}, {"clip", {{"kind", "std"}, {"factor", 2.5}}}},
        json{{"kind", "terngrad"}}}) {
    INFO(c.dump());
    const double compressed = loss(c);
    CHECK(compressed != exact);
    CHECK(compressed < 0.05 * start);
  }
}

TEST_CASE("profile models are charged bits_for(d) of the compressor") {
  const json doc = {{"workers", 2},
                    {"model", {{"kind", "profile"}, {"parameters", 1000}}},
                    {"algorithm",
                     {{"kind", "sgd"},
                      {"collective", "parameter-server"},
                      {"compressor", {{"kind", "lpc"}, {"bits", 5}, {"bucket", 100}}}}},
                    {"stop", {{"iterations", 3}}}};
  const auto out = dlsim::test::run_scenario(doc, "profile-lpc");
  CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() ==
        3 * 2 * ((32 * 10 + 1000 * 5) + 32 * 1000));
}

TEST_CASE("ring all-reduce takes fp16 (all-reducible) and refuses the others") {
  const auto out = dlsim::test::run_scenario(
      regression(sgd("ring-allreduce", {{"kind", "fp16"}}), 10), "ring-fp16");
  // 2(n−1) steps per iteration, n chunks of 9·16/4 rounded: lengths 2,2,2,3 → each worker
  // sends every chunk once in each phase except one
  CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() == 10 * 2 * 3 * 9 * 16);
  CHECK(error_path(regression(sgd("ring-allreduce", {{"kind", "top-k"}, {"k", 2}}))) ==
        "algorithm.collective");
  CHECK(
      error_path(regression(sgd("ring-allreduce", {{"kind", "fp16"}, {"error_feedback", true}}))) ==
      "algorithm.compressor.error_feedback");
  CHECK(error_path(regression(sgd("ring-allreduce", {{"kind", "none"}}))).empty());
}

TEST_CASE("bad compressor parameters are InputErrors naming the key") {
  auto path = [](const json& compressor) {
    return error_path(regression(sgd("parameter-server", compressor)));
  };
  CHECK(path({{"kind", "lpc"}, {"bits", 1}}) == "algorithm.compressor.bits");
  CHECK(path({{"kind", "lpc"}, {"bits", 33}}) == "algorithm.compressor.bits");
  CHECK(path({{"kind", "lpc"}, {"clip", {{"kind", "fixed"}}}}) ==
        "algorithm.compressor.clip.value");
  CHECK(path({{"kind", "qsgd"}, {"levels", 0}}) == "algorithm.compressor.levels");
  CHECK(path({{"kind", "qsgd"}, {"bucket", 0}}) == "algorithm.compressor.bucket");
  CHECK(path({{"kind", "top-k"}, {"ratio", 1}}) == "algorithm.compressor.ratio");
  CHECK(path({{"kind", "top-k"}, {"k", 0}}) == "algorithm.compressor.k");
  CHECK(path({{"kind", "top-k"}, {"k", 10}}) == "algorithm.compressor.k");  // d = 9
  CHECK(path({{"kind", "top-k"}, {"k", 9}}).empty());
  CHECK(path({{"kind", "none"}, {"error_feedback", true}}).empty());
}

TEST_CASE("compressed runs are deterministic: same seed, same bits and losses") {
  const json doc = regression(sgd("allgather", {{"kind", "lpc"},
                                                {"bits", 3},
                                                {"clip", {{"kind", "adaptive"}, {"factor", 1.2}}},
                                                {"error_feedback", true}}),
                              30);
  const auto a = dlsim::test::run_scenario(doc, "determinism-a");
  const auto b = dlsim::test::run_scenario(doc, "determinism-b");
  CHECK(a.summary["final"]["train_loss"] == b.summary["final"]["train_loss"]);
  CHECK(a.summary["totals"]["bits_total"] == b.summary["totals"]["bits_total"]);
  json other = doc;
  other["seed"] = 6;
  const auto c = dlsim::test::run_scenario(other, "determinism-c");
  CHECK(c.summary["final"]["train_loss"] != a.summary["final"]["train_loss"]);
}
