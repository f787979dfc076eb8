// Undirected communication graphs (DESIGN.md §9) as sorted neighbour lists.
//   ring:  i ~ i±1 (mod n)
//   torus: ±1 along each dimension with wrap-around, duplicates merged (a dimension
//          of size 2 gives one neighbour, not two); node id = row-major index.
#pragma once

#include <cstdint>
#include <vector>

namespace dlsim::topo {

struct Graph {
  std::vector<std::vector<int>> neighbors;  // sorted, no self loops, no duplicates

  int nodes() const { return int(neighbors.size()); }
  int degree(int i) const { return int(neighbors[i].size()); }
  std::int64_t edges() const;
};

Graph ring(int n);
Graph torus(const std::vector<std::int64_t>& dims);

}  // namespace dlsim::topo
