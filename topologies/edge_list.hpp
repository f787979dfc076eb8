// The `edge-list` topology: a text file with one undirected edge `i j` per line
// (node ids 0..n-1), `#` starting a comment, blank lines ignored. Refused, with
// `file:line` in the message (TopologyError at key "path"): unreadable files, lines
// that are not two integers, ids out of range, self loops, and (by the caller) a
// disconnected graph. Repeated edges are merged.
#pragma once

#include <string>

#include "topologies/graph.hpp"

namespace dlsim::topo {

Graph read_edge_list(const std::string& path, int n);

}  // namespace dlsim::topo
