// The options of the lattice kinds `torus` and `grid` (lattice.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "topologies/schedule.hpp"

namespace dlsim::topo {

struct LatticeOptions : TopologyOptions {
  std::vector<std::int64_t> dims;  // size of each dimension; product = nodes
};

}  // namespace dlsim::topo
