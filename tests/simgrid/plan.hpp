// A communication pattern both simulators run (tests/simgrid/README.md): nodes with
// their NIC rates, one link per ordered pair (latency α, bandwidth β), and per node the
// steps of one round, repeated `rounds` times. A round of a node: compute for
// `compute_s` (if it computes), then each step in turn: send one message of `bytes` to
// every destination of the step at once (eager: the transfer starts now), wait until
// all have arrived, then receive the step's messages, one from each source in order.
// Messages between two nodes are matched in sending order. A node's round is complete
// when its last step is; the completion times are what the simulators must agree on.
#pragma once

#include <string>
#include <vector>

namespace dlsim::simgrid_conformance {

struct Step {
  std::vector<int> send_to;
  double bytes = 0;  // per message
  std::vector<int> receive_from;
};

struct Plan {
  std::string name;
  int nodes = 0;
  std::vector<double> egress, ingress;  // bytes/s, per node
  double link_bandwidth = 0;            // bytes/s, every ordered pair
  double latency = 0;                   // seconds, every ordered pair
  double compute_s = 0;
  std::vector<bool> computes;            // per node
  std::vector<std::vector<Step>> steps;  // per node, one round
  int rounds = 0;
  bool lv08 = false;  // network.model lv08 / SimGrid LV08, else cm02 / CM02
};

/// The case named `pattern` (lone, ps, allgather, ring-allreduce, gossip-ring,
/// gossip-torus, gossip-random, gossip-ring1024) with `nics` (homogeneous, one-slow, two-slow),
/// `model` (cm02, lv08) and `latency` (short: 10 us, long: 50 ms). Throws
/// std::invalid_argument on an unknown name.
Plan make_plan(const std::string& pattern, const std::string& nics, const std::string& model,
               const std::string& latency);

/// Completion time [s] of round r of node i: times[r][i].
using RoundTimes = std::vector<std::vector<double>>;

RoundTimes run_simgrid(const Plan& plan, int argc, char** argv);
RoundTimes run_dlsim(const Plan& plan);

}  // namespace dlsim::simgrid_conformance
