// The conformance cases (tests/simgrid/README.md): 1 Gbit/s NICs, 10 Gbit/s links,
// 1 ms of compute per worker and round, 4 rounds; the slow NICs run at 1/4 and 1/2 of
// the others (egress and ingress).
#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <stdexcept>

#include "plan.hpp"

namespace dlsim::simgrid_conformance {

namespace {

constexpr double kNic = 1e9 / 8;    // bytes/s
constexpr double kLink = 10e9 / 8;  // bytes/s

std::vector<int> all_but(int n, int me) {
  std::vector<int> v;
  for (int j = 0; j < n; ++j)
    if (j != me) v.push_back(j);
  return v;
}

// Gossip: every node sends the same message to all its neighbours, then receives theirs.
void gossip(Plan& p, const std::vector<std::set<int>>& neighbours, double bytes) {
  p.nodes = int(neighbours.size());
  p.steps.resize(std::size_t(p.nodes));
  for (int i = 0; i < p.nodes; ++i) {
    std::vector<int> nb(neighbours[i].begin(), neighbours[i].end());
    p.steps[i] = {Step{nb, bytes, nb}};
  }
}

std::vector<std::set<int>> ring(int n) {
  std::vector<std::set<int>> g(static_cast<std::size_t>(n));
  for (int i = 0; i < n; ++i) {
    g[i].insert((i + 1) % n);
    g[i].insert((i + n - 1) % n);
  }
  return g;
}

std::vector<std::set<int>> torus(int rows, int cols) {
  std::vector<std::set<int>> g(static_cast<std::size_t>(rows * cols));
  for (int r = 0; r < rows; ++r) {
    for (int c = 0; c < cols; ++c) {
      const int i = r * cols + c;
      g[i].insert(((r + 1) % rows) * cols + c);
      g[i].insert(((r + rows - 1) % rows) * cols + c);
      g[i].insert(r * cols + (c + 1) % cols);
      g[i].insert(r * cols + (c + cols - 1) % cols);
    }
  }
  return g;
}

// A connected random graph: a ring of n plus `chords` random edges (raw mt19937_64
// draws, the same on every standard library).
std::vector<std::set<int>> random_graph(int n, int chords, std::uint64_t seed) {
  std::vector<std::set<int>> g = ring(n);
  std::mt19937_64 rng(seed);
  for (int added = 0; added < chords;) {
    const int a = int(rng() % std::uint64_t(n)), b = int(rng() % std::uint64_t(n));
    if (a == b || g[a].count(b)) continue;
    g[a].insert(b);
    g[b].insert(a);
    ++added;
  }
  return g;
}

}  // namespace

Plan make_plan(const std::string& pattern, const std::string& nics, const std::string& model,
               const std::string& latency) {
  Plan p;
  p.name = pattern + "." + nics + "." + model + "." + latency;
  p.link_bandwidth = kLink;
  p.compute_s = 1e-3;
  p.rounds = 4;
  if (model != "cm02" && model != "lv08") throw std::invalid_argument("unknown model " + model);
  p.lv08 = model == "lv08";
  if (latency == "short")
    p.latency = 10e-6;
  else if (latency == "long")
    p.latency = 50e-3;  // LV08's window 4194304 B / (2 · 50 ms) = 335.5 Mbit/s < 1 Gbit/s
  else
    throw std::invalid_argument("unknown latency " + latency);

  int workers = 0;
  double nic = kNic;
  if (pattern == "lone") {
    p.nodes = workers = 2;
    p.steps = {{Step{{1}, 1e6, {}}}, {Step{{}, 0, {0}}}};
    p.computes = {true, false};
  } else if (pattern == "ps") {
    workers = 8;
    p.nodes = workers + 1;  // the server is node 8; it does not compute
    p.steps.resize(std::size_t(p.nodes));
    std::vector<int> all;
    for (int i = 0; i < workers; ++i) {
      p.steps[i] = {Step{{workers}, 1e6, {workers}}};
      all.push_back(i);
    }
    p.steps[workers] = {Step{{}, 0, all}, Step{all, 1e6, {}}};
  } else if (pattern == "allgather") {
    p.nodes = workers = 8;
    p.steps.resize(std::size_t(p.nodes));
    for (int i = 0; i < workers; ++i)
      p.steps[i] = {Step{all_but(workers, i), 250e3, all_but(workers, i)}};
  } else if (pattern == "ring-allreduce") {
    // 2 MB cut into 8 chunks: 2(n − 1) steps, each one chunk to the right neighbour.
    p.nodes = workers = 8;
    p.steps.resize(std::size_t(p.nodes));
    for (int i = 0; i < workers; ++i)
      for (int s = 0; s < 2 * (workers - 1); ++s)
        p.steps[i].push_back(
            Step{{(i + 1) % workers}, 2e6 / workers, {(i + workers - 1) % workers}});
  } else if (pattern == "gossip-ring") {
    gossip(p, ring(8), 500e3);
  } else if (pattern == "gossip-ring1024") {
    // scenarios/bench/gossip-ring1024-profile.json's network pattern: 1024-node ring,
    // 32 kbit + 64 B header per message, no compute, 100 rounds, 10 Gbit/s everywhere and
    // 5 us (this pattern's own latency and rates, whatever NICS and LATENCY say).
    gossip(p, ring(1024), 4064);
    p.rounds = 100;
    p.compute_s = 0;
    p.latency = 5e-6;
    p.link_bandwidth = 10e9 / 8;
    nic = 10e9 / 8;
  } else if (pattern == "gossip-torus") {
    gossip(p, torus(3, 3), 500e3);
  } else if (pattern == "gossip-random") {
    gossip(p, random_graph(10, 5, 2024), 500e3);
  } else {
    throw std::invalid_argument("unknown pattern " + pattern);
  }
  if (workers == 0) workers = p.nodes;
  if (p.computes.empty()) {
    p.computes.assign(std::size_t(p.nodes), false);
    for (int i = 0; i < workers; ++i) p.computes[i] = true;
  }

  p.egress.assign(std::size_t(p.nodes), nic);
  p.ingress.assign(std::size_t(p.nodes), nic);
  auto slow = [&](int node, double factor) {
    p.egress[node] = nic * factor;
    p.ingress[node] = nic * factor;
  };
  if (nics == "one-slow") {
    slow(1, 0.25);
  } else if (nics == "two-slow") {
    slow(1, 0.25);
    slow(workers >= 4 ? workers / 2 : 0, 0.5);
  } else if (nics != "homogeneous") {
    throw std::invalid_argument("unknown nics " + nics);
  }
  return p;
}

}  // namespace dlsim::simgrid_conformance
