// Whole training rounds against closed forms (docs/design.md §7), through the same path as
// `dlsim run`, with `profile` models (no math: P parameters, compute time c per batch).
// S = 32P + H bits per full message, α latency, β bandwidth, n workers, K iterations.
#include <catch2/catch.hpp>

#include "run_helpers.hpp"

using nlohmann::json;

namespace {

constexpr double kAlpha = 20e-6;
constexpr double kBeta = 1e9;
constexpr double kHeaderBits = 512;
constexpr double kCompute = 3e-3;
constexpr int kIterations = 4;

json profile_scenario(int workers, std::int64_t parameters, json algorithm) {
  return json{{"workers", workers},
              {"model", {{"kind", "profile"}, {"parameters", parameters}, {"compute_time", "3ms"}}},
              {"algorithm", algorithm},
              {"network", {{"latency", "20us"}, {"bandwidth", "1Gbps"}, {"header", "64B"}}},
              {"stop", {{"iterations", kIterations}}},
              {"metrics", {{"every", {{"iterations", 1}}}}}};
}

double final_time(const json& summary) {
  return summary["final"]["time_s"].get<double>();
}
double end_time(const json& summary) {
  return summary["totals"]["sim_time_s"].get<double>();
}

}  // namespace

TEST_CASE("ring all-reduce: K(c + 2(n-1)(alpha + (M/n + H)/beta))", "[collectives]") {
  const int n = 8;
  const std::int64_t p = 100'000 * n;  // divisible by n
  for (const char* sharing : {"fair", "fifo"}) {
    json s = profile_scenario(n, p, {{"kind", "sgd"}, {"collective", "ring-allreduce"}});
    s["network"]["sharing"] = sharing;
    const auto out = dlsim::test::run_scenario(s, "ring");
    const double step = kAlpha + (32.0 * p / n + kHeaderBits) / kBeta;
    CHECK(final_time(out.summary) ==
          Approx(kIterations * (kCompute + 2 * (n - 1) * step)).epsilon(1e-9));
    // Every step, every worker sends one chunk of 32P/n bits.
    CHECK(out.summary["totals"]["bits_total"].get<double>() ==
          double(kIterations) * 2 * (n - 1) * n * 32.0 * p / n);
    CHECK(out.summary["totals"]["messages"].get<int>() == kIterations * 2 * (n - 1) * n);
  }
}

TEST_CASE("parameter server: uploads then downloads through the server's NIC", "[collectives]") {
  // Iteration k's model is ready after the k-th upload phase; the run ends with the
  // last download: end = K(c + 2(alpha + nS/beta)), last row = end - (alpha + nS/beta).
  const int n = 6;
  const std::int64_t p = 250'000;
  const auto out = dlsim::test::run_scenario(
      profile_scenario(n, p, {{"kind", "sgd"}, {"collective", "parameter-server"}}), "ps");
  const double phase = kAlpha + n * (32.0 * p + kHeaderBits) / kBeta;
  CHECK(end_time(out.summary) == Approx(kIterations * (kCompute + 2 * phase)).epsilon(1e-9));
  CHECK(final_time(out.summary) ==
        Approx(kIterations * (kCompute + 2 * phase) - phase).epsilon(1e-9));
  CHECK(out.summary["totals"]["messages"].get<int>() == kIterations * 2 * n);
}

TEST_CASE("all-gather: every worker sends to n-1 others at once", "[collectives]") {
  const int n = 5;
  const std::int64_t p = 300'000;
  const auto out = dlsim::test::run_scenario(
      profile_scenario(n, p, {{"kind", "sgd"}, {"collective", "allgather"}}), "allgather");
  const double round = kCompute + kAlpha + (n - 1) * (32.0 * p + kHeaderBits) / kBeta;
  CHECK(final_time(out.summary) == Approx(kIterations * round).epsilon(1e-9));
  CHECK(out.summary["totals"]["messages"].get<int>() == kIterations * n * (n - 1));
}

TEST_CASE("gossip (D-PSGD) on a ring and a torus: c + alpha + deg·S/beta per round",
          "[collectives]") {
  const std::int64_t p = 200'000;
  const double s = 32.0 * p + kHeaderBits;
  struct Case {
    json topology;
    int workers;
    int degree;
  };
  for (const auto& c :
       {Case{{{"kind", "ring"}}, 8, 2}, Case{{{"kind", "torus"}, {"dims", {4, 4}}}, 16, 4},
        Case{{{"kind", "torus"}, {"dims", {2, 3}}}, 6, 3}}) {
    json sc = profile_scenario(c.workers, p, {{"kind", "dpsgd"}});
    sc["topology"] = c.topology;
    const auto out = dlsim::test::run_scenario(sc, "gossip");
    INFO(c.topology.dump());
    CHECK(final_time(out.summary) ==
          Approx(kIterations * (kCompute + kAlpha + c.degree * s / kBeta)).epsilon(1e-9));
    CHECK(out.summary["totals"]["messages"].get<int>() == kIterations * c.workers * c.degree);
    CHECK(out.summary["topology"]["degree_max"].get<int>() == c.degree);
  }
}

TEST_CASE("a straggler slows the whole synchronous round", "[collectives]") {
  const int n = 4;
  const std::int64_t p = 100'000;
  json s = profile_scenario(n, p, {{"kind", "sgd"}, {"collective", "allgather"}});
  s["compute"] = {{"per_worker", {1, 1, 3, 1}}};
  const auto out = dlsim::test::run_scenario(s, "straggler");
  // Each round waits for worker 2 (3c); its messages then need alpha + S/beta each,
  // sharing nothing with the others' (already delivered) messages except its own egress.
  const double sbits = 32.0 * p + kHeaderBits;
  const double round = 3 * kCompute + kAlpha + (n - 1) * sbits / kBeta;
  CHECK(final_time(out.summary) == Approx(kIterations * round).epsilon(1e-9));
}
