// check_node_failures (failure_check.hpp). Node failures are simulated for the gossip
// kinds whose neighbours can notice a silent peer and re-normalize their weights on a
// graph that does not change (AlgorithmFacts::node_failures), on static undirected
// topologies. Refused, rather than simulated wrongly:
//   - centralized algorithms (a worker's loss would stall every collective),
//   - time-varying graphs (a peer met only now and then cannot be told apart from a
//     failed one by one missing message) and directed graphs (a sender never hears
//     from its out-neighbours, so it would push into a failed node forever),
//   - failures that leave no worker, or survivors in several pieces (gossip could not
//     reach consensus; the message names the components).
#include "sim/scenario/failure_check.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/input_error.hpp"
#include "sim/scenario/messages.hpp"
#include "sim/scenario/topology_build.hpp"

namespace dlsim::sim {

namespace {

// The kinds that simulate node failures, for messages: "dpsgd, sgp".
std::string kinds_with_failures() {
  std::vector<std::string> names;
  for (const AlgorithmInfo* info : AlgorithmRegistry::instance().all())
    if (info->facts.node_failures) names.push_back(info->name);
  return messages::join(names);
}

// Connected components of the graph `g` restricted to the nodes with alive[i] (a DFS).
int surviving_components(const topo::Graph& g, const std::vector<bool>& alive) {
  std::vector<int> component(std::size_t(g.nodes()), -1);
  int components = 0;
  std::vector<int> stack;
  for (int start = 0; start < g.nodes(); ++start) {
    if (!alive[std::size_t(start)] || component[std::size_t(start)] >= 0) continue;
    component[std::size_t(start)] = components;
    stack.assign(1, start);
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      for (int u : g.out(v)) {
        if (alive[std::size_t(u)] && component[std::size_t(u)] < 0) {
          component[std::size_t(u)] = components;
          stack.push_back(u);
        }
      }
    }
    ++components;
  }
  return components;
}

}  // namespace

void check_node_failures(const Scenario& s, const nlohmann::json& resolved) {
  const auto& failures = s.network.fail;
  if (failures.empty()) {
    const auto faults = resolved.at("network").at("faults");
    if (faults.contains("fail_timeout"))
      throw InputError("network.faults.fail_timeout",
                       "is set but network.faults.fail lists no node failure");
    return;
  }
  const std::string path = "network.faults.fail";
  const std::string& kind = s.algorithm.kind;
  if (!s.decentralized()) {
    throw InputError(path, "node failures are simulated for decentralized algorithms only (" +
                               kinds_with_failures() + "), got \"" + kind + "\"");
  }
  if (!s.algorithm.facts().node_failures) {
    throw InputError(path, "node failures are not supported for \"" + kind + "\" (only " +
                               kinds_with_failures() + ")");
  }
  std::map<std::int64_t, std::size_t> seen;
  for (std::size_t i = 0; i < failures.size(); ++i) {
    const std::string node_path = messages::index_path(path, i) + ".node";
    const std::int64_t node = failures[i].node;
    if (node >= s.workers) {
      throw InputError(node_path, "must be a worker id in [0, " + std::to_string(s.workers - 1) +
                                      "], got " + std::to_string(node));
    }
    if (auto [it, fresh] = seen.emplace(node, i); !fresh) {
      throw InputError(node_path, "worker " + std::to_string(node) + " fails twice (also in " +
                                      messages::index_path(path, it->second) + ")");
    }
  }
  if (std::int64_t(failures.size()) >= s.workers)
    throw InputError(path, "every worker fails; at least one must survive");

  const auto shared = shared_topology(s);  // held: another thread may replace the entry
  const topo::GraphSchedule& graph = *shared;
  if (graph.time_varying()) {
    throw InputError(path, "node failures need a static graph, but topology \"" + s.topology.kind +
                               "\" changes every round (a missing message cannot tell a failed "
                               "peer from one that is not a neighbour this round)");
  }
  if (graph.directed()) {
    throw InputError(path, "node failures need an undirected graph, but topology \"" +
                               s.topology.kind +
                               "\" is directed (a sender never hears from the node it pushes "
                               "to, so it could not notice the failure)");
  }
  std::vector<bool> alive(std::size_t(s.workers), true);
  for (const auto& f : failures) alive[std::size_t(f.node)] = false;
  const int components = surviving_components(graph.round(0)->out, alive);
  if (components > 1) {
    throw InputError(path, "the " + std::to_string(s.workers - std::int64_t(failures.size())) +
                               " surviving workers of the " + s.topology.kind + " form " +
                               std::to_string(components) +
                               " disconnected groups; gossip could not reach consensus");
  }
}

}  // namespace dlsim::sim
