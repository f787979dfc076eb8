// simgrid_gossip_ring1024 [SimGrid options]: the network pattern of
// scenarios/bench/gossip-ring1024-profile.json (1024-node ring, 100 rounds, 4064 B to each
// neighbour, 10 Gbit/s links and NICs, 5 us, no compute: choco-gossip's compute jobs cost
// nothing) run in SimGrid 3.32 alone, with the conformance tests' plan and s4u actors
// (tests/simgrid/). bench/simgrid_side_by_side.py times it against `dlsim run` on the
// scenario and compares the simulated end times. Prints the end time (the last node's
// completion of the last round) and the number of messages.
#include <algorithm>
#include <cstdio>

#include "tests/simgrid/plan.hpp"

using namespace dlsim::simgrid_conformance;

int main(int argc, char** argv) {
  const Plan plan = make_plan("gossip-ring1024", "homogeneous", "cm02", "short");
  const RoundTimes times = run_simgrid(plan, argc, argv);
  long long messages = 0;
  for (const auto& node_steps : plan.steps)
    for (const Step& step : node_steps) messages += std::ssize(step.send_to);
  messages *= plan.rounds;
  std::printf("simulated_time_s %.17g\n",
              *std::max_element(times.back().begin(), times.back().end()));
  std::printf("messages %lld\n", messages);
  return 0;
}
