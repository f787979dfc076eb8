#include "topologies/edge_list.hpp"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "topologies/topology_error.hpp"

namespace dlsim::topo {

namespace {

// A line as shown in an error: one line of at most 60 bytes (a 1 MB line is not echoed).
std::string shown_line(const std::string& line) {
  std::string text;
  for (const char c : line) {
    if (text.size() >= 57) return text + "...";
    text += static_cast<unsigned char>(c) < 0x20 ? ' ' : c;
  }
  return text;
}

}  // namespace

Graph read_edge_list(const std::string& path, int n) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw TopologyError("path", "cannot read edge list \"" + path + "\": is a directory");
  std::ifstream in(path);
  if (!in)
    throw TopologyError("path", "cannot read edge list \"" + path + "\": " + std::strerror(errno));
  std::vector<std::pair<int, int>> arcs;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    const auto fail = [&](const std::string& what) {
      throw TopologyError("path", path + ":" + std::to_string(number) + ": " + what);
    };
    if (const auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream fields(line);
    std::string first;
    if (!(fields >> first)) continue;  // blank or comment only
    fields.clear();
    fields.seekg(0);
    long long i = 0, j = 0;
    std::string rest;
    if (!(fields >> i >> j) || (fields >> rest)) {
      fail("expected two node ids \"i j\", got \"" + shown_line(line) + "\"");
    }
    for (long long id : {i, j}) {
      if (id < 0 || id >= n) {
        fail("node id " + std::to_string(id) + " is out of range [0, " + std::to_string(n - 1) +
             "] (workers = " + std::to_string(n) + ")");
      }
    }
    if (i == j) fail("self loop " + std::to_string(i) + " " + std::to_string(j));
    arcs.emplace_back(int(i), int(j));
  }
  if (arcs.empty()) throw TopologyError("path", path + ": no edges");
  return Graph::from_arcs(n, std::move(arcs), false);
}

}  // namespace dlsim::topo
