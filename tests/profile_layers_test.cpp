// `profile` models given as layers (model.layers): each layer is one tensor for
// per-tensor compression, and batch · Σ flops / compute.speed is the compute time of a
// batch gradient (models/objectives/profile.hpp). Pinned against the closed-form
// parameter-server period, against the same run stated as a fixed compute_time, and
// against the per-tensor top-k size Σ_l k_l (32 + ⌈log2 d_l⌉).
#include <catch2/catch.hpp>

#include <sstream>
#include <vector>

#include "run_helpers.hpp"
#include "sim/scenario/input_error.hpp"

using nlohmann::json;

namespace {

const json kLayers = json::array({{{"name", "conv"}, {"parameters", 1000}, {"flops", 1e6}},
                                  {{"name", "fc"}, {"parameters", 24}, {"flops", 5e5}}});

json server_run(json model, json compressor = {{"kind", "none"}}) {
  return {{"workers", 2},
          {"model", model},
          {"algorithm",
           {{"kind", "sgd"},
            {"collective", "parameter-server"},
            {"batch_size", 10},
            {"compressor", compressor}}},
          {"network", {{"latency", "10us"}, {"bandwidth", "1Gbps"}, {"header", "64B"}}},
          {"compute", {{"speed", "1GFLOPS"}}},
          {"stop", {{"iterations", 4}}},
          {"metrics", {{"every", {{"iterations", 1}}}}}};
}

std::vector<double> times(const std::string& csv) {
  std::istringstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  std::vector<double> t;
  while (std::getline(in, line)) t.push_back(std::stod(line.substr(0, line.find(','))));
  return t;
}

// metrics.csv without its last column (wall_s, the only non-reproducible one).
std::string without_wall_s(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

std::string error_path(const json& doc) {
  try {
    dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  } catch (const dlsim::sim::InputError& e) {
    return e.where();
  }
  return "";
}

}  // namespace

TEST_CASE("a layered profile's compute time is batch x sum of flops / speed") {
  const auto layered = dlsim::test::run_scenario(
      server_run({{"kind", "profile"}, {"layers", kLayers}}), "profile-layers");
  // c = 10 · (1e6 + 5e5) / 1e9 = 15 ms. Per iteration two fp32 uploads of P = 1024·32 bits
  // plus H = 512 header bits share the server's ingress, then the model goes back to both
  // over its egress: period c + 2α + 4(P + H)/β.
  const double period = 0.015 + 2 * 10e-6 + 4.0 * (1024 * 32 + 512) / 1e9;
  const std::vector<double> t = times(layered.metrics_csv);
  REQUIRE(t.size() == 5);
  for (std::size_t k = 2; k < t.size(); ++k) CHECK(t[k] - t[k - 1] == Approx(period).epsilon(1e-9));

  // The same model as one tensor with its compute time stated: the same metrics.
  const auto fixed = dlsim::test::run_scenario(
      server_run({{"kind", "profile"}, {"parameters", 1024}, {"compute_time", "15ms"}}),
      "profile-fixed");
  CHECK(without_wall_s(fixed.metrics_csv) == without_wall_s(layered.metrics_csv));
  CHECK(layered.summary["scenario"]["model"]["compute_time"] == "0s");
}

TEST_CASE("a layered profile is compressed per tensor") {
  const json top_k = {{"kind", "top-k"}, {"ratio", 0.9}, {"per_tensor", true}};
  const auto out = dlsim::test::run_scenario(
      server_run({{"kind", "profile"}, {"layers", kLayers}}, top_k), "profile-topk");
  // k = round(0.1 d) per tensor: 100 of 1000 (index 10 bits), 2 of 24 (index 5 bits).
  const std::uint64_t upload = 100 * (32 + 10) + 2 * (32 + 5);
  const std::uint64_t download = 1024 * 32;  // the server's model broadcast is fp32
  CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() == 4 * 2 * (upload + download));
}

TEST_CASE("compute_time 0 is pure communication") {
  const auto out = dlsim::test::run_scenario(
      server_run({{"kind", "profile"}, {"parameters", 1024}, {"compute_time", 0}}), "profile-zero");
  const double period = 2 * 10e-6 + 4.0 * (1024 * 32 + 512) / 1e9;
  const std::vector<double> t = times(out.metrics_csv);
  REQUIRE(t.size() == 5);
  for (std::size_t k = 2; k < t.size(); ++k) CHECK(t[k] - t[k - 1] == Approx(period).epsilon(1e-9));
}

TEST_CASE("profile keys are checked") {
  const auto path = [](json model) {
    model["kind"] = "profile";
    return error_path(server_run(model));
  };
  CHECK(path({{"parameters", 10}, {"layers", kLayers}}) == "model.layers");
  CHECK(path(json::object()) == "model.parameters");
  CHECK(path({{"layers", json::array()}}) == "model.layers");
  json duplicate = kLayers;
  duplicate[1]["name"] = "conv";
  CHECK(path({{"layers", duplicate}}) == "model.layers[1].name");
  json zero = kLayers;
  zero[0]["parameters"] = 0;
  CHECK(path({{"layers", zero}}) == "model.layers[0].parameters");
  json negative = kLayers;
  negative[1]["flops"] = -1;
  CHECK(path({{"layers", negative}}) == "model.layers[1].flops");
  json unnamed = kLayers;
  unnamed[0].erase("name");
  CHECK(path({{"layers", unnamed}}) == "model.layers[0].name");
  CHECK(path({{"parameters", 10}, {"compute_time", "-1ms"}}) == "model.compute_time");
  CHECK(path({{"parameters", 10}, {"compute_time", 0}}).empty());
  CHECK(path({{"layers", kLayers}}).empty());
}
