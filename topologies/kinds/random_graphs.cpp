// The random static kinds (topologies/registry.hpp; generators in random_graphs.cpp,
// drawn from the scenario's seed): `random-regular`, `erdos-renyi` G(n, p) and
// `small-world` (Watts and Strogatz, "Collective dynamics of 'small-world' networks",
// Nature 1998), resampled until connected (random-regular only for degree >= 3 and
// 2·degree < workers − 1, the only case that can come out disconnected).
#include "topologies/random_graphs.hpp"
#include "topologies/registry.hpp"

namespace dlsim::topo {
namespace {

struct RandomRegularOptions : TopologyOptions {
  int degree = 3;
};
struct ErdosRenyiOptions : TopologyOptions {
  double p = 0.1;
};
struct SmallWorldOptions : TopologyOptions {
  int k = 4;
  double p = 0.1;
};

// One definition for both kinds, so that the reference documents `p` once.
spec::Key probability() {
  return spec::defaulted("p", spec::number().ge(0).le(1), 0.1,
                         "erdos-renyi: probability of each edge (> 0); small-world: "
                         "probability that each lattice edge is rewired.");
}

const TopologyRegistration random_regular{{
    .name = "random-regular",
    .doc = "A random connected graph where every node has the same degree (Steger-Wormald "
           "pairing; degrees above (workers - 1)/2 as the complement of a sparser one).",
    .keys = {spec::defaulted("degree", spec::integer().ge(1), 3,
                             "Degree of every node; workers x degree must be even.")},
    .read =
        [](const nlohmann::json& j) {
          auto o = std::make_shared<RandomRegularOptions>();
          o->degree = int(j.at("degree").get<std::int64_t>());
          return std::shared_ptr<const TopologyOptions>(std::move(o));
        },
    .check =
        [](const TopologyParams& p) {
          check_random_regular(p.nodes, p.options_as<RandomRegularOptions>().degree);
        },
    .make =
        [](const TopologyParams& p) {
          const auto& o = p.options_as<RandomRegularOptions>();
          return GraphSchedule::fixed(p, random_regular_graph(p.nodes, o.degree, p.seed));
        },
}};

const TopologyRegistration erdos_renyi{{
    .name = "erdos-renyi",
    .doc = "G(n, p): every edge independently with probability p, resampled until connected.",
    .keys = {probability()},
    .read =
        [](const nlohmann::json& j) {
          auto o = std::make_shared<ErdosRenyiOptions>();
          o->p = j.at("p").get<double>();
          return std::shared_ptr<const TopologyOptions>(std::move(o));
        },
    .make =
        [](const TopologyParams& p) {
          const auto& o = p.options_as<ErdosRenyiOptions>();
          return GraphSchedule::fixed(p, erdos_renyi_graph(p.nodes, o.p, p.seed));
        },
}};

const TopologyRegistration small_world{{
    .name = "small-world",
    .doc = "Watts-Strogatz: ring lattice with k neighbours, edges rewired with probability p, "
           "resampled until connected.",
    .keys = {spec::defaulted("k", spec::integer().ge(2), 4,
                             "Lattice neighbours of each node (even, k/2 per side)."),
             probability()},
    .read =
        [](const nlohmann::json& j) {
          auto o = std::make_shared<SmallWorldOptions>();
          o->k = int(j.at("k").get<std::int64_t>());
          o->p = j.at("p").get<double>();
          return std::shared_ptr<const TopologyOptions>(std::move(o));
        },
    .make =
        [](const TopologyParams& p) {
          const auto& o = p.options_as<SmallWorldOptions>();
          return GraphSchedule::fixed(p, small_world_graph(p.nodes, o.k, o.p, p.seed));
        },
}};

}  // namespace
}  // namespace dlsim::topo
