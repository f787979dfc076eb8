// Node failures of decentralized runs (issue 10; sim/runtime/node_failures.hpp,
// sim/algorithms/failures.hpp). A worker of a ring or torus stops mid-run; checked:
//   - D-PSGD pure averaging against a replay written here from the update rule (ring,
//     Metropolis 1/3, fp32 messages; from the failure on the neighbours give the
//     failed node's 1/3 to themselves): every row's train_loss and consensus distance,
//     over all workers before and over the survivors after, to 1e-6 (an fp32 rounding
//     can flip with the order of a double sum, so a bit-exact replay would have to copy
//     the code's summation order); the survivors' average is preserved from the round
//     in which the neighbours notice (train_loss − distance = ||x̄_S − x̄⁰||² stays put
//     to 1e-6 of itself, fp32 messages) and they reach consensus on it;
//   - timing in closed form: a failure-free round takes R = c + α + 2·32d/β (compute,
//     then two fp32 messages sharing the egress port); the neighbours begin waiting at
//     the end of the failed node's first missing round and give up fail_timeout later,
//     so that row comes R + fail_timeout after the one before;
//   - CHOCO-gossip (top-k), CHOCO-SGD (choco-paper order) and SGP keep the survivors'
//     average exactly once the neighbours dropped the node (the test fails if the
//     failed node's copy stayed in s_i, or if SGP did not take back the share it pushed
//     in the round it noticed) and converge; AdaG continues and contracts;
//   - least squares with D-PSGD, where the failed worker holds the largest targets
//     (sorted partition): the survivors end at the optimum of the survivors' data
//     (normal equations), not at the optimum of all data;
//   - no failure configured: metrics.csv is the same as with an empty `fail` list and
//     as with a failure after the end of the run (which is reported as not stopped).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include <Eigen/Dense>

#include "gossip_helpers.hpp"
#include "run_helpers.hpp"

using dlsim::test::averaging_scenario;
using dlsim::test::metrics_column;
using nlohmann::json;
using Vector = Eigen::VectorXd;

namespace {

constexpr double kLatency = 5e-6;   // s
constexpr double kBandwidth = 1e9;  // bit/s
constexpr double kTimeout = 50e-6;  // s
constexpr double kSpeed = 10e9;     // FLOP/s (the default)

json with_network(json s) {
  s["network"] = {{"latency", "5us"}, {"bandwidth", "1Gbps"}};
  return s;
}

json with_failure(json s, int node, double at) {
  s["network"]["faults"] = {{"fail", {{{"node", node}, {"at", at}}}}, {"fail_timeout", kTimeout}};
  return s;
}

std::vector<Vector> worker_starts(const json& scenario) {
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(scenario));
  const auto starts = prepared.objective->worker_starts();
  return {starts.begin(), starts.end()};
}

// (loss, distance) of a set of models against the initial average of all workers.
std::pair<double, double> loss_and_distance(const std::vector<Vector>& models,
                                            const Vector& initial_average) {
  Vector mean = Vector::Zero(models.front().size());
  for (const Vector& x : models) mean += x;
  mean /= double(models.size());
  double loss = 0, distance = 0;
  for (const Vector& x : models) {
    loss += (x - initial_average).squaredNorm();
    distance += (x - mean).squaredNorm();
  }
  return {loss / double(models.size()), distance / double(models.size())};
}

Vector fp32(const Vector& v) {
  return v.cast<float>().cast<double>();
}

double seconds_between(const std::vector<double>& times, std::size_t a, std::size_t b) {
  return times[b] - times[a];
}

}  // namespace

TEST_CASE("D-PSGD: a failed ring node's neighbours re-normalize and the survivors agree",
          "[failures]") {
  const int n = 8, d = 5, iterations = 300, dead = 3;
  const json base = with_network(averaging_scenario("dpsgd", {{"kind", "ring"}}, n, d, iterations));
  const auto clean = dlsim::test::run_scenario(base, "failure-free");
  const auto clean_time = metrics_column(clean.metrics_csv, "time_s");
  const double round = clean_time[1] - clean_time[0];

  // R in closed form: the consensus gradient's FLOPs, then two fp32 messages of d
  // coordinates leaving one egress port at once, plus the latency.
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(base));
  const double compute = prepared.objective->gradient_cost(32).flops / kSpeed;
  CHECK(round == Approx(compute + kLatency + 2 * 32.0 * d / kBandwidth).epsilon(1e-9));

  // Fails in the middle of round 3 (0-based 2): stops at the boundary 3R.
  const auto out = dlsim::test::run_scenario(with_failure(base, dead, 2.5 * round), "dpsgd-fail");
  const json& record = out.summary.at("failures").at("nodes").at(0);
  REQUIRE(record.at("iterations_done") == 3);
  CHECK(record.at("stopped_s").get<double>() == Approx(3 * round).epsilon(1e-9));
  std::set<int> noticed;
  for (const json& d_ : record.at("detected_by")) {
    noticed.insert(d_.at("node").get<int>());
    CHECK(d_.at("iteration") == 3);
    CHECK(d_.at("time_s").get<double>() == Approx(4 * round + kTimeout).epsilon(1e-9));
  }
  CHECK(noticed == std::set<int>{2, 4});

  // Rows: the round the neighbours notice in takes R + fail_timeout.
  const auto time = metrics_column(out.metrics_csv, "time_s");
  REQUIRE(time.size() == std::size_t(iterations + 1));
  CHECK(seconds_between(time, 2, 3) == Approx(round).epsilon(1e-9));
  CHECK(seconds_between(time, 3, 4) == Approx(round + kTimeout).epsilon(1e-9));

  // The replay.
  std::vector<Vector> x = worker_starts(base);
  Vector initial_average = Vector::Zero(d);
  for (const Vector& v : x) initial_average += v;
  initial_average /= n;
  const auto loss = metrics_column(out.metrics_csv, "train_loss");
  const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
  std::vector<bool> alive(n, true);
  for (int r = 0; r <= iterations; ++r) {
    std::vector<Vector> present;
    for (int i = 0; i < n; ++i)
      if (alive[std::size_t(i)]) present.push_back(x[std::size_t(i)]);
    const auto [want_loss, want_distance] = loss_and_distance(present, initial_average);
    INFO("row " << r);
    CHECK(loss[std::size_t(r)] == Approx(want_loss).epsilon(1e-6));
    CHECK(distance[std::size_t(r)] ==
          Approx(want_distance).epsilon(1e-6).margin(1e-9 * distance[0]));
    if (r == 3) alive[dead] = false;  // stops before its iteration 3
    std::vector<Vector> next = x;
    for (int i = 0; i < n; ++i) {
      if (!alive[std::size_t(i)]) continue;
      next[std::size_t(i)] = x[std::size_t(i)] / 3;
      for (int j : {(i + n - 1) % n, (i + 1) % n})
        next[std::size_t(i)] += alive[std::size_t(j)] ? fp32(x[std::size_t(j)]) / 3  // w_ij
                                                      : x[std::size_t(i)] / 3;       // to w_ii
    }
    x = next;
  }
  // The survivors' average, preserved from row 4 on (fp32 messages: to 1e-10).
  const double offset = loss[4] - distance[4];
  CHECK(offset > 1e-4 * loss[0]);  // it differs from the average of all eight
  for (std::size_t r = 4; r < loss.size(); ++r)
    CHECK(std::abs((loss[r] - distance[r]) - offset) <= 1e-6 * offset);
  CHECK(distance.back() < 1e-12 * distance[0]);
}

TEST_CASE("CHOCO and SGP keep the survivors' average once the neighbours dropped the node",
          "[failures]") {
  struct Case {
    std::string name;
    json algorithm;
    double tolerance;  // of the preserved average, relative to the first train_loss
  };
  const std::vector<Case> cases = {
      {"choco-gossip top-k",
       {{"kind", "choco-gossip"},
        {"consensus_step", 0.3},
        {"compressor", {{"kind", "top-k"}, {"ratio", 0.5}}}},
       1e-12},
      {"choco-sgd choco-paper",
       {{"kind", "choco-sgd"}, {"order", "choco-paper"}, {"consensus_step", 0.5}},
       1e-12},
      {"sgp", {{"kind", "sgp"}}, 1e-10},  // fp32 messages
  };
  const json torus = {{"kind", "torus"}, {"dims", {4, 4}}};
  for (const Case& c : cases) {
    INFO(c.name);
    json s = with_network(averaging_scenario("", torus, 16, 40, 400, 1));
    s["algorithm"] = c.algorithm;
    const auto clean = dlsim::test::run_scenario(s, "failure-free");
    const double round = metrics_column(clean.metrics_csv, "time_s")[5] / 5;
    const auto out = dlsim::test::run_scenario(with_failure(s, 5, 2.5 * round), "gossip-fail");
    const json& record = out.summary.at("failures").at("nodes").at(0);
    std::set<int> noticed;
    for (const json& d : record.at("detected_by")) noticed.insert(d.at("node").get<int>());
    CHECK(noticed == std::set<int>{1, 4, 6, 9});  // its torus neighbours
    const auto k = std::size_t(record.at("iterations_done").get<int>());
    REQUIRE(k >= 2);
    REQUIRE(k <= 4);
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
    REQUIRE(loss.size() == 401);
    const double offset = loss[k + 2] - distance[k + 2];
    CHECK(offset > 1e-6 * loss[0]);
    for (std::size_t r = k + 2; r < loss.size(); ++r) {
      INFO("row " << r);
      CHECK(std::abs((loss[r] - distance[r]) - offset) <= c.tolerance * loss[0]);
    }
    CHECK(distance.back() < 1e-8 * distance[0]);
  }
}

TEST_CASE("AdaG-SGD continues on the surviving torus", "[failures]") {
  json s = with_network(
      averaging_scenario("adag-sgd", {{"kind", "torus"}, {"dims", {4, 4}}}, 16, 40, 300, 10));
  s["algorithm"]["consensus_step"] = 0.05;
  const auto out = dlsim::test::run_scenario(with_failure(s, 5, 0.0), "adag-fail");
  const json& record = out.summary.at("failures").at("nodes").at(0);
  CHECK(record.at("iterations_done") == 0);
  CHECK(record.at("detected_by").size() == 4);
  const auto distance = metrics_column(out.metrics_csv, "consensus_distance");
  CHECK(metrics_column(out.metrics_csv, "iteration").back() == 300);
  CHECK(distance.back() < 1e-3 * distance[1]);
}

TEST_CASE("D-PSGD least squares reaches the optimum of the survivors' data", "[failures]") {
  const int n = 8;
  const std::set<int> dead = {6, 7};
  const json s = {
      {"workers", n},
      {"seed", 3},
      {"data",
       {{"source", "synthetic-regression"},
        {"samples", 800},
        {"features", 5},
        {"noise", 3.0},
        {"partition", {{"kind", "sorted"}}}}},
      {"model", {{"kind", "least-squares"}}},
      {"algorithm",
       {{"kind", "dpsgd"},
        {"step_size", 0.05},
        {"batch_size", 100},
        // a smaller step for the second half shrinks D-PSGD's heterogeneity bias
        {"schedule", {{"kind", "step"}, {"milestones", {0.4, 0.7}}, {"factor", 0.1}}}}},
      {"topology", {{"kind", "ring"}}},
      {"network",
       {{"faults", {{"fail", {{{"node", 6}, {"at", 0.0}}, {{"node", 7}, {"at", 0.0}}}}}}}},
      {"stop", {{"iterations", 6000}}},
      {"metrics", {{"every", {{"iterations", 100}}}, {"test", false}}}};
  const auto out = dlsim::test::run_scenario(s, "least-squares-fail");
  const auto loss = metrics_column(out.metrics_csv, "train_loss");

  // Optima of all data and of the survivors' shards (normal equations, bias last).
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(s));
  const auto& train = prepared.data->train;
  const auto optimum = [&](bool survivors_only) {
    std::vector<long> rows;
    for (int i = 0; i < n; ++i)
      if (!survivors_only || !dead.count(i))
        rows.insert(rows.end(), prepared.shards[std::size_t(i)].begin(),
                    prepared.shards[std::size_t(i)].end());
    Eigen::MatrixXd a(long(rows.size()), train.features.cols() + 1);
    Vector b(long(rows.size()));
    for (std::size_t r = 0; r < rows.size(); ++r) {
      a.row(long(r)) << train.features.row(rows[r]), 1.0;
      b[long(r)] = train.labels[rows[r]];
    }
    return Vector(a.colPivHouseholderQr().solve(b));
  };
  const double loss_all = prepared.objective->loss(optimum(false), train);
  const double loss_survivors = prepared.objective->loss(optimum(true), train);
  INFO("loss at the optimum of all data " << loss_all << ", of the survivors' data "
                                          << loss_survivors << ", reached " << loss.back());
  REQUIRE(loss_survivors > 1.1 * loss_all);  // the lost shards matter
  CHECK(loss.back() == Approx(loss_survivors).epsilon(0.005));
  CHECK(metrics_column(out.metrics_csv, "consensus_distance").back() < 1e-3);
}

TEST_CASE("Without failures the results do not change", "[failures]") {
  json s = with_network(averaging_scenario("choco-gossip", {{"kind", "ring"}}, 8, 10, 50, 5));
  s["algorithm"]["compressor"] = {{"kind", "top-k"}, {"ratio", 0.5}};
  s["algorithm"]["consensus_step"] = 0.3;
  const auto plain = dlsim::test::run_scenario(s, "no-failures");
  s["network"]["faults"] = {{"fail", json::array()}};
  const auto empty = dlsim::test::run_scenario(s, "empty-failures");
  const auto strip_wall = [](const std::string& csv) {  // the last column is wall time
    std::string out;
    std::istringstream lines(csv);
    for (std::string line; std::getline(lines, line);)
      out += line.substr(0, line.rfind(',')) + "\n";
    return out;
  };
  CHECK(strip_wall(plain.metrics_csv) == strip_wall(empty.metrics_csv));
  CHECK_FALSE(plain.summary.contains("failures"));
  // A failure after the end of the run changes nothing but adds the record.
  s["network"]["faults"] = {{"fail", {{{"node", 2}, {"at", 1000.0}}}}};
  const auto late = dlsim::test::run_scenario(s, "late-failure");
  CHECK(strip_wall(plain.metrics_csv) == strip_wall(late.metrics_csv));
  CHECK(late.summary.at("failures").at("nodes").at(0).at("stopped_s").is_null());
}
