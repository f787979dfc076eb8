// simgrid_conformance PATTERN NICS MODEL LATENCY [SimGrid options]: runs one case
// (plan.hpp) in SimGrid and in dlsim and compares every node's round completion times;
// exit 0 when all agree to 1e-9 relative, 1 when one does not, 2 on a bad case name.
#include <cmath>
#include <cstdio>
#include <exception>

#include "plan.hpp"

using namespace dlsim::simgrid_conformance;

int main(int argc, char** argv) {
  if (argc < 5) {
    std::fprintf(stderr, "usage: %s PATTERN NICS MODEL LATENCY [--cfg=...]\n", argv[0]);
    return 2;
  }
  Plan plan;
  try {
    plan = make_plan(argv[1], argv[2], argv[3], argv[4]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "simgrid_conformance: error: %s\n", e.what());
    return 2;
  }
  argv[4] = argv[0];  // SimGrid sees the program name and the options after the case
  const RoundTimes expected = run_simgrid(plan, argc - 4, argv + 4);
  const RoundTimes actual = run_dlsim(plan);
  constexpr double kTolerance = 1e-9;
  int mismatches = 0;
  double worst = 0;
  std::printf("%s: round node simgrid dlsim relative-difference\n", plan.name.c_str());
  for (int r = 0; r < plan.rounds; ++r) {
    for (int i = 0; i < plan.nodes; ++i) {
      const double want = expected[r][i], got = actual[r][i];
      const double diff = std::abs(got - want) / std::abs(want);
      worst = std::max(worst, diff);
      const bool ok = want > 0 && got > 0 && diff <= kTolerance;
      mismatches += !ok;
      std::printf("%d %d %.17g %.17g %.3g%s\n", r, i, want, got, diff, ok ? "" : "  MISMATCH");
    }
  }
  std::printf("%s: %d mismatches, largest relative difference %.3g\n", plan.name.c_str(),
              mismatches, worst);
  return mismatches == 0 ? 0 : 1;
}
