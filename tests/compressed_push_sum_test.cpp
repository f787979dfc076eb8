// Compressed push-sum (choco-sgp, adag-sgp; sim/algorithms/compressed_push_sum.hpp).
//  - The node math driven in-process on a directed exponential graph with real
//    compressors: Σ_i x_i and Σ_i w_i are conserved after every round, and z_i converges
//    to the true average of the initial vectors, computed here from the vectors.
//  - adag-sgp's banded per-coordinate step (closed form) and its per-coordinate weights: a
//    two-node round worked out by hand; pure averaging with β = 0.999 at top-k 90 % / 99 %
//    and qsgd reaches the true average to 1e-6 with the weights inside [1/c, c]; least
//    squares trained at top-k 90 % / 99 % reaches near the normal-equations optimum.
//  - End to end through `dlsim run`'s path: pure averaging (model consensus) reaches the
//    true average with top-k and qsgd, on the static directed exponential graph and on
//    the time-varying one-peer exponential graph (one copy per edge); choco-sgp trains least
//    squares on a directed graph to near the optimum of the normal equations; bits per message are
//    exact.
#include <catch2/catch.hpp>

#include <Eigen/Dense>

#include "gossip_helpers.hpp"
#include "models/compress/compressor.hpp"
#include "models/compress/quantizers.hpp"
#include "models/compress/sparsifiers.hpp"
#include "run_helpers.hpp"
#include "sim/algorithms/compressed_push_sum.hpp"
#include "topologies/schedule.hpp"

using dlsim::models::Vector;
using dlsim::sim::CompressedPushSumNode;
using dlsim::sim::CompressedPushSumOptions;
using dlsim::sim::CopyShare;
using dlsim::test::metrics_column;
using nlohmann::json;

namespace {

using dlsim::topo::GraphSchedule;

GraphSchedule directed_exponential(int n) {
  dlsim::topo::TopologyParams p;
  p.kind = "directed-exponential";
  p.nodes = n;
  return GraphSchedule::make(p);
}

struct Sums {
  Vector numerator, weight;
};

Sums sums(const std::vector<CompressedPushSumNode>& nodes) {
  Sums s{Vector::Zero(nodes[0].numerator().size()), Vector::Zero(nodes[0].weight().size())};
  for (const auto& node : nodes) {
    s.numerator += node.numerator();
    s.weight += node.weight();
  }
  return s;
}

// One synchronous round of the static-graph protocol (what compressed_push_sum_worker.cpp
// does, without time): every node compresses its differences on stream 0, the copies add
// the decoded messages at the sender and at every out-neighbour, then every node mixes.
// The weight difference goes in fp32 (choco-sgp's scalar) or compressed (adag-sgp).
void round(std::vector<CompressedPushSumNode>& nodes, const GraphSchedule& graph,
           std::vector<std::unique_ptr<dlsim::models::Compressor>>& compressors,
           std::mt19937_64& rng) {
  const int n = int(nodes.size());
  dlsim::models::Fp32Compressor fp32;
  Vector dx, dw, qx, qw;
  for (int i = 0; i < n; ++i) {
    nodes[i].differences(0, dx, dw);
    compressors[i]->decode(compressors[i]->encode(dx, rng), qx);
    if (dw.size() == 1)
      fp32.decode(fp32.encode(dw, rng), qw);
    else
      compressors[i]->decode(compressors[i]->encode(dw, rng), qw);
    nodes[i].sent(0, qx, qw);
    for (int l : graph.neighborhood(i, 0).out) nodes[l].received(i, qx, qw);
  }
  for (int i = 0; i < n; ++i) {
    const auto nb = graph.neighborhood(i, 0);
    std::vector<CopyShare> in;
    for (std::size_t j = 0; j < nb.in.size(); ++j) in.push_back({nb.in[j], nb.in_weights[j]});
    const CopyShare out{0, 1 - nb.self_weight};  // column-stochastic: Σ_l P_li = 1 − P_ii
    nodes[i].mix(in, std::span<const CopyShare>(&out, 1));
  }
}

std::unique_ptr<dlsim::models::Compressor> make(const std::string& kind, double ratio) {
  if (kind == "top-k") {
    dlsim::models::SparsityOptions o;
    o.ratio = ratio;
    return std::make_unique<dlsim::models::TopKCompressor>(o);
  }
  return std::make_unique<dlsim::models::StochasticQuantizer>(
      dlsim::models::qsgd_options(16, 0, false, false));
}

}  // namespace

struct AveragingCase {
  bool adaptive;
  std::string compressor;
  double ratio, gamma;
  double band = dlsim::sim::kAdaptiveStepBand;  // adag-sgp: algorithm.step_band
};

TEST_CASE(
    "compressed push-sum conserves numerator and weight sums every round and reaches the "
    "true average",
    "[choco-sgp]") {
  const int n = 16, d = 30;
  const GraphSchedule graph = directed_exponential(n);
  // top-k 90 % keeps 3 of 30 coordinates, 99 % keeps 1; γ is the stable CHOCO step of each
  const std::vector<AveragingCase> cases{{false, "top-k", 0.75, 0.4},   {false, "qsgd", 0, 0.4},
                                         {true, "top-k", 0.9, 0.2},     {true, "top-k", 0.99, 0.05},
                                         {true, "qsgd", 0, 0.4},        {true, "top-k", 0.5, 0.4},
                                         {true, "top-k", 0.9, 0.2, 1.2}};
  // The last case: with band 4 the weights of this case reach 1.33 (max of w and 1/w), so
  // it fails unless the band reaches the step (options.band, algorithm.step_band).
  for (const AveragingCase& c : cases) {
    INFO((c.adaptive ? "adag-sgp " : "choco-sgp ")
         << c.compressor << " " << c.ratio << " band " << c.band);
    std::mt19937_64 rng(11);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<CompressedPushSumNode> nodes;
    std::vector<std::unique_ptr<dlsim::models::Compressor>> compressors;
    Vector truth = Vector::Zero(d);
    for (int i = 0; i < n; ++i) {
      Vector x0(d);
      for (auto& v : x0) v = normal(rng) + 3.0 * i;  // far from consensus
      truth += x0 / n;
      nodes.emplace_back(x0, CompressedPushSumOptions{c.gamma, c.adaptive, 0.999, 1e-8, c.band});
      compressors.push_back(make(c.compressor, c.ratio));
    }
    const Sums start = sums(nodes);
    CHECK(start.weight.size() == (c.adaptive ? d : 1));
    const double band = c.band;
    for (int r = 0; r < 3000; ++r) {
      round(nodes, graph, compressors, rng);
      const Sums now = sums(nodes);
      // exact up to the double rounding accumulated over the rounds
      REQUIRE((now.numerator - start.numerator).cwiseAbs().maxCoeff() < 1e-10);
      REQUIRE((now.weight - start.weight).cwiseAbs().maxCoeff() < 1e-11);
      // doubly stochastic P: fixed-point weights lie in [1/c, c] (compressed_push_sum.hpp)
      for (const auto& node : nodes) {
        REQUIRE(node.weight().minCoeff() > 1 / band);
        REQUIRE(node.weight().maxCoeff() < band);
      }
    }
    Vector z;
    for (const auto& node : nodes) {
      node.debiased(z);
      CHECK((z - truth).cwiseAbs().maxCoeff() < 1e-6);
    }
  }
}

TEST_CASE("adag-sgp's step is AdaGossip's, scale-free and banded to [gamma/c, gamma]",
          "[adag-sgp]") {
  using dlsim::sim::banded_adaptive_step;
  const double c = dlsim::sim::kAdaptiveStepBand, eps = 1e-8;
  // v̂ = (400, 0, ..., 0) over 20 coordinates: ρ = √(400/20) = √20; coordinate 0's factor
  // √20/20 ≈ 0.224 is below 1/c = 0.25 (clamped), the silent ones' ρ/ε is above 1.
  Eigen::ArrayXd v = Eigen::ArrayXd::Zero(20);
  v[0] = 400;
  Eigen::ArrayXd step = banded_adaptive_step(v, 20, 0.3, eps);
  CHECK(step[0] == Approx(0.3 / c));
  CHECK(step.tail(19).minCoeff() == Approx(0.3));
  CHECK(step.tail(19).maxCoeff() == Approx(0.3));
  // v̂ = (1, 49): ρ = 5, factors (5/1 → 1, 5/7)
  step = banded_adaptive_step(Eigen::ArrayXd{{1.0, 49.0}}, 2, 0.5, eps);
  CHECK(step[0] == Approx(0.5));
  CHECK(step[1] == Approx(0.5 * 5 / 7));
  // the scale of the messages does not matter (AdaGossip's raw γ/√v̂ would be 1e6 larger)
  const Eigen::ArrayXd small = banded_adaptive_step(Eigen::ArrayXd{{1e-12, 49e-12}}, 2, 0.5, 0);
  CHECK(small[1] == Approx(0.5 * 5 / 7));
  // before any message: γ; never above 1
  CHECK(banded_adaptive_step(Eigen::ArrayXd(), 3, 0.5, eps)
            .isApprox(Eigen::ArrayXd::Constant(3, 0.5)));
  CHECK(banded_adaptive_step(Eigen::ArrayXd{{1.0, 1.0}}, 2, 1.5, eps).maxCoeff() == 1.0);
}

TEST_CASE("adag-sgp mixes each coordinate's weight with that coordinate's sender step",
          "[adag-sgp]") {
  // Two nodes, P = [[1/2, 1/2], [1/2, 1/2]], γ = 1/2, one round with exact messages
  // q = x − 0; the weight copies start at ŵ = w⁰ = (1, 1), so the weight messages are 0.
  // After one message v̂ = q ⊙ q for any β, ρ = √(mean q²), γ_jk = ½ clamp(ρ/|q_k|, ¼, 1):
  //   node 0: q = (1, 7), ρ = 5 → γ_0 = (1/2, 5/14);   node 1: q = (5, 5) → γ_1 = (1/2, 1/2).
  // x_i ← x_i + ½ γ_j ⊙ x̂_j − ½ γ_i ⊙ x̂_i, and the same with ŵ = (1, 1):
  //   x_0 = (1 + 5/4 − 1/4, 7 + 5/4 − 5/4) = (2, 7)     w_0 = (1 + ¼ − ¼, 1 + ¼ − 5/28)
  //   x_1 = (5 + 1/4 − 5/4, 5 + 5/4 − 5/4) = (4, 5)     w_1 = (1 + ¼ − ¼, 1 + 5/28 − ¼)
  const double eps = 1e-8;
  const CompressedPushSumOptions options{0.5, true, 0.999, eps};
  std::vector<CompressedPushSumNode> nodes{CompressedPushSumNode(Vector{{1.0, 7.0}}, options),
                                           CompressedPushSumNode(Vector{{5.0, 5.0}}, options)};
  Vector dx, dw;
  for (int i = 0; i < 2; ++i) {
    nodes[i].differences(0, dx, dw);
    CHECK(dw.cwiseAbs().maxCoeff() == 0.0);  // ŵ starts at the known initial weight
    nodes[i].sent(0, dx, dw);
    nodes[1 - i].received(i, dx, dw);
  }
  for (int i = 0; i < 2; ++i) {
    const CopyShare in{1 - i, 0.5}, out{0, 0.5};
    nodes[i].mix(std::span<const CopyShare>(&in, 1), std::span<const CopyShare>(&out, 1));
  }
  const double tol = 1e-7;  // ε's effect
  CHECK(nodes[0].numerator()[0] == Approx(2.0).margin(tol));
  CHECK(nodes[0].numerator()[1] == Approx(7.0).margin(tol));
  CHECK(nodes[1].numerator()[0] == Approx(4.0).margin(tol));
  CHECK(nodes[1].numerator()[1] == Approx(5.0).margin(tol));
  CHECK(nodes[0].weight()[0] == Approx(1.0).margin(tol));
  CHECK(nodes[0].weight()[1] == Approx(15.0 / 14).margin(tol));
  CHECK(nodes[1].weight()[0] == Approx(1.0).margin(tol));
  CHECK(nodes[1].weight()[1] == Approx(13.0 / 14).margin(tol));
  Vector z0, z1;
  nodes[0].debiased(z0);
  nodes[1].debiased(z1);
  CHECK(z0[0] == Approx(2.0).margin(tol));
  CHECK(z0[1] == Approx(98.0 / 15).margin(tol));  // 7 / (15/14): the weights differ per coordinate
  CHECK(z1[0] == Approx(4.0).margin(tol));
  CHECK(z1[1] == Approx(70.0 / 13).margin(tol));
  // A scalar weight could not hold both: coordinate 0's weights (1, 1) are not
  // coordinate 1's (15/14, 13/14). The weight messages of round 2 are w − ŵ = w − 1.
  nodes[0].differences(0, dx, dw);
  CHECK(dw[1] == Approx(1.0 / 14).margin(tol));
}

TEST_CASE("choco-sgp and adag-sgp average to the true average on a directed exponential graph",
          "[choco-sgp]") {
  const json topology = {{"kind", "directed-exponential"}};
  struct Case {
    std::string kind;
    json compressor;
    double gamma;
    int iterations;
  };
  const std::vector<Case> cases{
      {"choco-sgp", {{"kind", "top-k"}, {"ratio", 0.75}}, 0.4, 400},
      {"choco-sgp", {{"kind", "qsgd"}, {"levels", 16}}, 0.4, 400},
      {"adag-sgp", {{"kind", "top-k"}, {"ratio", 0.9}}, 0.2, 1500},  // β = 0.999 (default)
      {"adag-sgp", {{"kind", "top-k"}, {"ratio", 0.99}}, 0.05, 3000},
      {"adag-sgp", {{"kind", "qsgd"}, {"levels", 16}}, 0.4, 400}};
  for (const Case& c : cases) {
    INFO(c.kind << " " << c.compressor.dump());
    json doc =
        dlsim::test::averaging_scenario(c.kind, topology, 16, 40, c.iterations, c.iterations);
    doc["algorithm"]["compressor"] = c.compressor;
    doc["algorithm"]["consensus_step"] = c.gamma;
    const auto out = dlsim::test::run_scenario(doc, c.kind);
    // train_loss = (1/n) Σ_i ||z_i − x̄⁰||², x̄⁰ the average of the initial vectors
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    REQUIRE(loss.size() == 2);
    CHECK(loss[0] > 10);
    CHECK(loss[1] < 1e-12);  // every coordinate within 1e-6
    // copies per node: one outgoing stream + log2(16) = 4 in-neighbours; a copy is one
    // model-sized vector (choco-sgp: x̂) or three (adag-sgp: x̂, ŵ, v)
    const std::int64_t per_copy = c.kind == "adag-sgp" ? 3 : 1;
    CHECK(out.summary["gossip_memory"]["vectors_per_node_max"].get<std::int64_t>() == 5 * per_copy);
    CHECK(out.summary["gossip_memory"]["vectors_total"].get<std::int64_t>() == 16 * 5 * per_copy);
  }
}

TEST_CASE("choco-sgp on one-peer-exponential (one copy per edge) reaches the true average",
          "[choco-sgp]") {
  for (const std::string kind : {"choco-sgp", "adag-sgp"}) {
    INFO(kind);
    const bool adaptive = kind == "adag-sgp";
    const int iterations = adaptive ? 1500 : 400;
    json doc = dlsim::test::averaging_scenario(kind, {{"kind", "one-peer-exponential"}}, 16, 40,
                                               iterations, iterations);
    doc["algorithm"]["compressor"] = {{"kind", "top-k"}, {"ratio", adaptive ? 0.9 : 0.5}};
    doc["algorithm"]["consensus_step"] = adaptive ? 0.2 : 0.4;
    const auto out = dlsim::test::run_scenario(doc, kind + "-one-peer");
    const auto loss = metrics_column(out.metrics_csv, "train_loss");
    REQUIRE(loss.size() == 2);
    CHECK(loss[1] < 1e-12);
    // one message per node per round (a single out-neighbour each round)
    CHECK(out.summary["totals"]["messages"].get<std::int64_t>() == iterations * 16);
    // one copy per edge ever used: out-neighbours i + 1, 2, 4, 8 and in-neighbours
    // i − 1, 2, 4, 8
    const std::int64_t per_copy = adaptive ? 3 : 1;
    CHECK(out.summary["gossip_memory"]["vectors_total"].get<std::int64_t>() == 16 * 8 * per_copy);
  }
}

TEST_CASE("choco-sgp messages carry the compressed numerator and a 32-bit weight", "[choco-sgp]") {
  json doc = dlsim::test::averaging_scenario("choco-sgp", {{"kind", "directed-exponential"}}, 8,
                                             100, 5, 5);
  doc["algorithm"]["compressor"] = {{"kind", "top-k"}, {"k", 10}};
  const auto out = dlsim::test::run_scenario(doc, "choco-sgp-bits");
  const json& totals = out.summary["totals"];
  // directed-exponential on 8 nodes: out-neighbours +1, +2, +4; top-k: k (32 + ⌈log2 100⌉)
  CHECK(totals["messages"].get<std::int64_t>() == 5 * 8 * 3);
  CHECK(totals["bits_total"].get<std::int64_t>() == 5 * 8 * 3 * (10 * (32 + 7) + 32));
  doc["algorithm"]["kind"] = "adag-sgp";  // the weight vector is compressed like x
  const auto adag = dlsim::test::run_scenario(doc, "adag-sgp-bits");
  CHECK(adag.summary["totals"]["bits_total"].get<std::int64_t>() == 5 * 8 * 3 * 2 * 10 * 39);
}

namespace {

struct LeastSquaresCase {
  std::string kind;
  double ratio, gamma;
  int features;
  double tolerance;  // final excess loss as a fraction of the initial excess loss
};

void check_least_squares(const LeastSquaresCase& c) {
  INFO(c.kind << " top-k " << c.ratio << " features " << c.features);
  const json doc = {
      {"workers", 8},
      {"seed", 3},
      {"data", {{"source", "synthetic-regression"}, {"samples", 800}, {"features", c.features}}},
      {"model", {{"kind", "least-squares"}}},
      {"algorithm",
       {{"kind", c.kind},
        {"step_size", 0.05},
        {"batch_size", 100},
        {"consensus_step", c.gamma},
        {"compressor", {{"kind", "top-k"}, {"ratio", c.ratio}}}}},
      {"topology", {{"kind", "directed-exponential"}}},
      {"stop", {{"iterations", 1500}}},
      {"metrics", {{"every", {{"iterations", 1500}}}}}};
  const auto out = dlsim::test::run_scenario(doc, c.kind + "-ls");
  const auto loss = metrics_column(out.metrics_csv, "train_loss");
  REQUIRE(loss.size() == 2);

  // f* from the normal equations of the same data (bias column appended, no l2)
  auto prepared = dlsim::sim::prepare(dlsim::sim::load_scenario(doc));
  const auto& train = prepared.data->train;
  Eigen::MatrixXd a(train.size(), train.feature_count() + 1);
  a << train.features.view(), Eigen::VectorXd::Ones(train.size());
  const Eigen::VectorXd w = (a.transpose() * a).ldlt().solve(a.transpose() * train.labels);
  const double optimum = 0.5 * (a * w - train.labels).squaredNorm() / double(train.size());
  CHECK(prepared.objective->loss(w, train) == Approx(optimum).epsilon(1e-9));
  INFO("f0 " << loss[0] << " fT " << loss[1] << " f* " << optimum);
  CHECK(loss[1] - optimum < c.tolerance * (loss[0] - optimum));
}

}  // namespace

TEST_CASE("choco-sgp trains least squares on a directed graph to near the optimum", "[choco-sgp]") {
  check_least_squares({"choco-sgp", 0.5, 0.5, 10, 1e-3});
}

TEST_CASE("adag-sgp trains least squares at top-k 90 % and 99 % to near the optimum",
          "[adag-sgp]") {
  // 11 parameters at 90 % and 101 at 99 %: one coordinate per message either way
  check_least_squares({"adag-sgp", 0.9, 0.2, 10, 1e-4});
  check_least_squares({"adag-sgp", 0.99, 0.05, 100, 1e-4});
}
