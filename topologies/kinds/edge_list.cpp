// Topology kind `edge-list`: an undirected graph read from a file, one "i j" per line
// (topologies/edge_list.cpp), refused when not connected (topologies/registry.hpp).
#include "topologies/edge_list.hpp"

#include "topologies/analysis.hpp"
#include "topologies/registry.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {
namespace edge_list_topology {

struct EdgeListOptions : TopologyOptions {
  std::string path;
};

const TopologyRegistration registered{{
    .name = "edge-list",
    .doc =
        "Undirected edges read from a file: one \"i j\" per line (ids 0..workers-1), # comments.",
    .keys = {spec::required("path", spec::string().nonempty(), "Path of the edge-list file.")},
    .read =
        [](const nlohmann::json& j) {
          auto o = std::make_shared<EdgeListOptions>();
          o->path = j.at("path").get<std::string>();
          return std::shared_ptr<const TopologyOptions>(std::move(o));
        },
    .make =
        [](const TopologyParams& p) {
          const std::string& path = p.options_as<EdgeListOptions>().path;
          const int n = p.nodes;
          Graph g = read_edge_list(path, n);
          if (!is_connected(g)) {
            throw TopologyError("path", path + ": the graph is not connected (gossip could never " +
                                            "reach every node); node ids are 0.." +
                                            std::to_string(n - 1));
          }
          return GraphSchedule::fixed(p, std::move(g));
        },
}};

}  // namespace edge_list_topology
}  // namespace dlsim::topo
