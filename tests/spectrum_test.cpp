// Spectral facts against closed forms and against a second computation:
//   ring, uniform w = 1/3: λ_k = (1 + 2cos(2πk/n))/3 (docs/algorithms.md §4 oracles for
//   n = 16 and 32); directed ring with weights 1/2: |λ_k| = |cos(πk/n)|; hypercube
//   Q_d with metropolis w = 1/(d+1): λ = 1 − 2j/(d+1); complete graph: 0; torus:
//   sums of ring terms; the sparse (Spectra) path against dense Eigen on random
//   graphs; the FFT path against dense matrix products; random matchings against a
//   Monte Carlo average of W_t.
#include <catch2/catch.hpp>

#include <cmath>
#include <complex>

#include <Eigen/Dense>

#include "topologies/analysis.hpp"
#include "topologies/facts.hpp"
#include "topologies/generators.hpp"
#include "topologies/registry.hpp"
#include "topologies/schedule.hpp"
#include "topologies/spectrum.hpp"

using namespace dlsim::topo;

namespace {

const double kPi = std::acos(-1.0);

TopologyFacts facts_of(const std::string& kind, int n, const std::string& weights = "metropolis",
                       std::vector<std::int64_t> dims = {}, int degree = 3, double p = 0.1) {
  // The keys of every kind that takes them; each kind reads its own.
  nlohmann::json keys = {{"degree", degree}, {"p", p}};
  if (!dims.empty()) keys["dims"] = std::move(dims);
  return describe(GraphSchedule::make(topology_params(kind, n, keys, 11, weights)));
}

// Eigenvalues of a dense symmetric matrix, ascending.
Eigen::VectorXd eigenvalues(const Eigen::MatrixXd& w) {
  return Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(w, Eigen::EigenvaluesOnly).eigenvalues();
}

double slem_of(const Eigen::MatrixXd& m) {
  Eigen::VectorXd moduli = Eigen::EigenSolver<Eigen::MatrixXd>(m).eigenvalues().cwiseAbs();
  std::sort(moduli.data(), moduli.data() + moduli.size(), std::greater<>());
  return moduli[1];
}

}  // namespace

TEST_CASE("ring: the docs/algorithms.md oracles and the closed form", "[spectrum]") {
  const TopologyFacts r16 = facts_of("ring", 16, "uniform");
  CHECK(*r16.spectrum.lambda2 == Approx(0.94925).margin(5e-6));
  CHECK(*r16.spectrum.lambda_min == Approx(-1.0 / 3).margin(1e-12));
  CHECK(*r16.spectrum.spectral_gap == Approx(0.05075).margin(5e-6));
  CHECK(*facts_of("ring", 32, "uniform").spectrum.spectral_gap == Approx(0.01281).margin(5e-6));
  for (int n : {5, 16, 33, 100}) {
    INFO("n = " << n);
    const double lambda2 = (1 + 2 * std::cos(2 * kPi / n)) / 3;
    const double lambda_min = (1 + 2 * std::cos(2 * kPi * (n / 2) / n)) / 3;
    for (const char* rule : {"metropolis", "uniform", "max-degree"}) {  // all 1/3 on a ring
      const TopologyFacts f = facts_of("ring", n, rule);
      CHECK(*f.spectrum.lambda2 == Approx(lambda2).margin(1e-12));
      CHECK(*f.spectrum.lambda_min == Approx(lambda_min).margin(1e-12));
      CHECK(*f.spectrum.spectral_gap ==
            Approx(1 - std::max(std::abs(lambda2), std::abs(lambda_min))).margin(1e-12));
    }
  }
}

TEST_CASE("large rings and tori: the sparse path matches the closed form", "[spectrum]") {
  // n > kDenseNodes: shift-invert for λ2 (gap ~ 1/n²) and Cholesky bisection for λmin.
  // (describe() takes the circulant closed form for rings; the sparse path is called
  // directly here.)
  for (int n : {2000, 30000}) {
    INFO("n = " << n);
    const GraphSchedule ring =
        GraphSchedule::make(topology_params("ring", n, {}, 11, "metropolis"));
    const Spectrum sp = symmetric_spectrum(*ring.round(0), ring.rule(), n / 2);
    CHECK_THAT(sp.method, Catch::Contains("Spectra"));
    const double gap = 1 - (1 + 2 * std::cos(2 * kPi / n)) / 3;  // 1 − λ2
    CHECK((1 - *sp.lambda2) == Approx(gap).epsilon(1e-5));
    CHECK(*sp.lambda_min == Approx((1 + 2 * std::cos(kPi * 2 * (n / 2) / n)) / 3).margin(1e-10));
    CHECK(facts_of("ring", n).diameter == n / 2);
  }
  // Torus a×b, metropolis w = 1/5: λ = 1 − (2/5)(2 − cos(2πi/a) − cos(2πj/b)).
  const int a = 40, b = 60;
  const TopologyFacts t = facts_of("torus", a * b, "metropolis", {a, b});
  const double lambda2 = 1 - 0.4 * (1 - std::cos(2 * kPi / b));
  const double lambda_min = 1 - 0.4 * 4;  // i = a/2, j = b/2
  CHECK((1 - *t.spectrum.lambda2) == Approx(1 - lambda2).epsilon(1e-6));
  CHECK(*t.spectrum.lambda_min == Approx(lambda_min).margin(1e-10));
  CHECK(t.diameter == a / 2 + b / 2);
  // Odd sides (not bipartite): λmin from the frequencies nearest π, by brute force
  // over the closed form.
  const int c = 33, d = 37;
  double smallest = 1;
  for (int i = 0; i < c; ++i) {
    for (int j = 0; j < d; ++j) {
      smallest =
          std::min(smallest, 1 - 0.4 * (2 - std::cos(2 * kPi * i / c) - std::cos(2 * kPi * j / d)));
    }
  }
  const TopologyFacts odd = facts_of("torus", c * d, "metropolis", {c, d});
  CHECK_THAT(odd.spectrum.method, Catch::Contains("Spectra"));
  CHECK(*odd.spectrum.lambda_min == Approx(smallest).margin(1e-9));
  CHECK((1 - *odd.spectrum.lambda2) == Approx(0.4 * (1 - std::cos(2 * kPi / d))).epsilon(1e-6));
}

TEST_CASE("circulant kinds of any size: the closed form, to the gap's last digits", "[spectrum]") {
  // Ring, metropolis w = 1/3: 1 − λ_k = (4/3) sin²(πk/n) (no cancellation: the oracle
  // keeps its digits when the gap is 1e-11). n prime, even, odd, 10^6.
  for (int n : {1031, 2000, 30001, 1000000}) {
    INFO("n = " << n);
    const TopologyFacts f = facts_of("ring", n);
    CHECK_THAT(f.spectrum.method, Catch::Contains("closed form"));
    const double gap = 4.0 / 3 * std::pow(std::sin(kPi / n), 2);
    CHECK(*f.spectrum.spectral_gap == Approx(gap).epsilon(1e-12));
    CHECK(*f.spectrum.lambda_min ==
          Approx(1 - 4.0 / 3 * std::pow(std::sin(kPi * (n / 2) / n), 2)).margin(1e-14));
  }
  // Exponential graph (shifts ±2^j) against the dense solver, above and below
  // kDenseNodes' old limit for the circulant path.
  for (int n : {12, 100, 1500}) {
    INFO("exponential n = " << n);
    const GraphSchedule s =
        GraphSchedule::make(topology_params("exponential", n, {}, 11, "metropolis"));
    const Eigen::VectorXd values = eigenvalues(dense_weights(*s.round(0)));
    const TopologyFacts f = describe(s);
    CHECK(*f.spectrum.lambda2 == Approx(values[n - 2]).margin(1e-12));
    CHECK(*f.spectrum.lambda_min == Approx(values[0]).margin(1e-12));
  }
}

// The Dyck graph's known invariants, computed here from the adjacency matrix alone (not
// from the library's spectrum code): cubic, 48 edges, bipartite, girth 6, diameter 5, and
// the characteristic polynomial (x - 3)(x + 3)(x - 1)^9 (x + 1)^9 (x^2 - 5)^6.
TEST_CASE("dyck: the Dyck graph's invariants and spectrum", "[spectrum]") {
  const Graph g = dyck_graph(32);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(32, 32);
  int arcs = 0;
  for (int i = 0; i < 32; ++i) {
    CHECK(g.out_degree(i) == 3);
    for (int j : g.out(i)) {
      a(i, j) = 1;
      ++arcs;
    }
  }
  CHECK(arcs == 2 * 48);
  CHECK(g.edges() == 48);
  CHECK((a - a.transpose()).cwiseAbs().maxCoeff() == 0);
  // Girth 6: no closed walk of length 3 or 5 through distinct edges in a bipartite graph;
  // no 4-cycle means every pair of nodes shares at most one neighbour.
  const Eigen::MatrixXd a2 = a * a;
  const Eigen::MatrixXd a3 = a2 * a;
  CHECK(a3.diagonal().cwiseAbs().maxCoeff() == 0);  // no triangle
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      if (i != j) CHECK(a2(i, j) <= 1);  // no 4-cycle
    }
  }
  // Bipartite: the spectrum is symmetric about 0 and has -3.
  const Eigen::VectorXd ev = eigenvalues(a);
  const std::vector<std::pair<double, int>> expected = {{-3, 1}, {-std::sqrt(5.0), 6}, {-1, 9},
                                                        {1, 9},  {std::sqrt(5.0), 6},  {3, 1}};
  int at = 0;
  for (const auto& [value, times] : expected) {
    for (int t = 0; t < times; ++t) CHECK(ev(at++) == Approx(value).margin(1e-12));
  }
  CHECK(diameter(g, false) == 5);
  // Metropolis weights on a cubic graph are 1/4 everywhere: W = (I + A)/4, so
  // λ2 = (1 + sqrt 5)/4 and λ_min = (1 - 3)/4.
  const TopologyFacts f = facts_of("dyck", 32);
  CHECK(*f.spectrum.lambda2 == Approx((1 + std::sqrt(5.0)) / 4).margin(1e-12));
  CHECK(*f.spectrum.lambda_min == Approx(-0.5).margin(1e-12));
  CHECK(f.diameter == 5);
}

TEST_CASE("hypercube, complete and star: closed forms", "[spectrum]") {
  for (int d : {3, 5, 8}) {
    const int n = 1 << d;
    const TopologyFacts f = facts_of("hypercube", n);  // metropolis: 1/(d+1)
    INFO("d = " << d);
    CHECK(*f.spectrum.lambda2 == Approx(1 - 2.0 / (d + 1)).margin(1e-12));
    CHECK(*f.spectrum.lambda_min == Approx(1 - 2.0 * d / (d + 1)).margin(1e-12));
    CHECK(f.diameter == d);
  }
  const TopologyFacts c = facts_of("complete", 20);  // W = (1/n)11ᵀ
  CHECK(*c.spectrum.lambda2 == Approx(0).margin(1e-12));
  CHECK(*c.spectrum.spectral_gap == Approx(1).margin(1e-12));
  // Max-degree on the complete graph is the same matrix.
  CHECK(*facts_of("complete", 20, "max-degree").spectrum.spectral_gap == Approx(1).margin(1e-12));
  // Star with metropolis weights 1/n: eigenvalues 1, 1 − 1/n (n − 2 times), 0.
  const TopologyFacts s = facts_of("star", 12);
  CHECK(*s.spectrum.lambda2 == Approx(1 - 1.0 / 12).margin(1e-12));
  CHECK(*s.spectrum.lambda_min == Approx(0).margin(1e-12));
  // Uniform on the star (not symmetric, similar to a symmetric matrix): the spectrum
  // of the similarity transform equals that of W itself.
  TopologyParams p;
  p.kind = "star";
  p.nodes = 12;
  p.weights = "uniform";
  const GraphSchedule star = GraphSchedule::make(p);
  Eigen::VectorXcd direct =
      Eigen::EigenSolver<Eigen::MatrixXd>(dense_weights(*star.round(0))).eigenvalues();
  std::vector<double> re;
  for (auto z : direct) {
    CHECK(std::abs(z.imag()) < 1e-12);
    re.push_back(z.real());
  }
  std::sort(re.begin(), re.end());
  const TopologyFacts u = describe(star);
  CHECK(*u.spectrum.lambda2 == Approx(re[re.size() - 2]).margin(1e-12));
  CHECK(*u.spectrum.lambda_min == Approx(re[0]).margin(1e-12));
}

TEST_CASE("the sparse Lanczos path agrees with dense Eigen on random graphs", "[spectrum]") {
  struct Case {
    std::string kind;
    std::string weights;
    int degree;
    double p;
  };
  for (const Case& c :
       {Case{"random-regular", "metropolis", 4, 0}, Case{"erdos-renyi", "uniform", 3, 0.006},
        Case{"small-world", "max-degree", 3, 0.3}}) {
    INFO(c.kind << " " << c.weights);
    const int n = 1200;  // above kDenseNodes: the facts use the sparse path
    const TopologyParams p =
        topology_params(c.kind, n, {{"degree", c.degree}, {"p", c.p}}, 5, c.weights);
    const GraphSchedule s = GraphSchedule::make(p);
    const TopologyFacts f = describe(s);
    CHECK_THAT(f.spectrum.method, Catch::Contains("Spectra"));
    // The dense reference: W is symmetric, or (uniform) similar to the symmetric
    // D^½ W D^-½ with D = diag(d_i + 1), built here from the dense W by hand.
    Eigen::MatrixXd w = dense_weights(*s.round(0));
    if (c.weights == "uniform") {
      Eigen::VectorXd scale(n);
      for (int i = 0; i < n; ++i) scale[i] = std::sqrt(double((w.row(i).array() != 0).count()));
      w = scale.asDiagonal() * w * scale.cwiseInverse().asDiagonal();
    }
    REQUIRE((w - w.transpose()).cwiseAbs().maxCoeff() < 1e-14);
    const Eigen::VectorXd all = eigenvalues(w);
    std::vector<double> re(all.data(), all.data() + n);
    CHECK(re.back() == Approx(1).margin(1e-10));
    CHECK(*f.spectrum.lambda2 == Approx(re[n - 2]).margin(1e-7));
    CHECK(*f.spectrum.lambda_min == Approx(re[0]).margin(1e-7));
  }
}

TEST_CASE("directed ring with weights 1/2: |λ_k| = |cos(πk/n)|", "[spectrum]") {
  for (int n : {5, 16, 40}) {
    TopologyParams p;
    p.kind = "directed-ring";
    p.nodes = n;
    const GraphSchedule s = GraphSchedule::make(p);
    const Eigen::MatrixXd w = dense_weights(*s.round(0));
    // Every eigenvalue (1 + ω^k)/2 of the dense matrix has modulus |cos(πk/n)|.
    Eigen::VectorXd moduli = Eigen::EigenSolver<Eigen::MatrixXd>(w).eigenvalues().cwiseAbs();
    std::vector<double> got(moduli.data(), moduli.data() + n), expected;
    for (int k = 0; k < n; ++k) expected.push_back(std::abs(std::cos(kPi * k / n)));
    std::sort(got.begin(), got.end());
    std::sort(expected.begin(), expected.end());
    for (int k = 0; k < n; ++k) CHECK(got[k] == Approx(expected[k]).margin(1e-10));
    const TopologyFacts f = describe(s);
    CHECK(*f.spectrum.lambda2 == Approx(std::cos(kPi / n)).margin(1e-12));
    CHECK_FALSE(f.spectrum.lambda_min.has_value());
    CHECK(f.diameter == n - 1);
    CHECK(f.connected);
  }
}

TEST_CASE("FFT of circulant rounds equals the dense product's SLEM", "[spectrum]") {
  for (const char* kind : {"directed-exponential", "one-peer-exponential", "directed-ring"}) {
    for (int n : {6, 12, 16, 23}) {
      INFO(kind << " n=" << n);
      TopologyParams p;
      p.kind = kind;
      p.nodes = n;
      const GraphSchedule s = GraphSchedule::make(p);
      Eigen::MatrixXd product = Eigen::MatrixXd::Identity(n, n);
      for (std::int64_t t = 0; t < s.period(); ++t) product = dense_weights(*s.round(t)) * product;
      const TopologyFacts f = describe(s);
      CHECK(*f.spectrum.lambda2 == Approx(slem_of(product)).margin(1e-10));
    }
  }
  // n a power of two: the one-peer product is the averaging matrix, SLEM 0.
  CHECK(*facts_of("one-peer-exponential", 32).spectrum.lambda2 == Approx(0).margin(1e-12));
  // Large n: the FFT path needs no dense matrix.
  const TopologyFacts big = facts_of("directed-ring", 100000);
  CHECK(*big.spectrum.lambda2 == Approx(std::cos(kPi / 100000)).margin(1e-12));
}

TEST_CASE("random matching: E[W] from a Monte Carlo average of the rounds", "[spectrum]") {
  const int n = 8;
  TopologyParams p;
  p.kind = "random-matching";
  p.nodes = n;
  const GraphSchedule s = GraphSchedule::make(p);
  Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(n, n);
  const int rounds = 20000;
  for (int t = 0; t < rounds; ++t) {
    const Eigen::MatrixXd w = dense_weights(*s.round(t));
    if (t < 50) CHECK((w * w - w).cwiseAbs().maxCoeff() < 1e-15);  // a projection: WᵀW = W
    mean += w / rounds;
  }
  // Off-diagonal entries: P(i, j matched) / 2 = 1/(2(n − 1)) = 1/14, sd ≈ 0.0018/√…
  const Eigen::VectorXd values = eigenvalues(0.5 * (mean + mean.transpose()));
  const TopologyFacts f = describe(s);
  CHECK(*f.spectrum.lambda2 == Approx(0.5 - 0.5 / (n - 1)).margin(1e-15));
  CHECK(values[n - 2] == Approx(*f.spectrum.lambda2).margin(0.01));
  CHECK(values[0] == Approx(*f.spectrum.lambda_min).margin(0.01));
  CHECK(*f.spectrum.spectral_gap == Approx(0.5 + 0.5 / (n - 1)).margin(1e-15));
}
