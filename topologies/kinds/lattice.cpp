// The lattice kinds (topologies/registry.hpp): `torus`, ±1 along each dimension with
// wrap-around, and `grid`, without. Both take `dims`, whose product must be the
// number of workers.
#include "topologies/kinds/lattice.hpp"

#include <string>

#include "topologies/generators.hpp"
#include "topologies/registry.hpp"
#include "topologies/topology_error.hpp"

namespace dlsim::topo {
namespace {

constexpr std::int64_t kSmallest = 2;  // torus and grid alike

std::vector<spec::Key> keys() {
  // The same bound for torus and grid: the reference documents the key once.
  return {spec::required("dims", spec::array_of(spec::integer().ge(kSmallest)).nonempty(),
                         "Size of each dimension; the product must equal workers.")};
}

std::shared_ptr<const TopologyOptions> read(const nlohmann::json& j) {
  auto o = std::make_shared<LatticeOptions>();
  o->dims = j.at("dims").get<std::vector<std::int64_t>>();
  return o;
}

// A JSON value in an error message, shortened (as sim/scenario/messages.hpp shows values).
std::string shown(const nlohmann::json& value) {
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  if (text.size() > 60) text = text.substr(0, 57) + "...";
  return text;
}

// At scenario load, with the index of a bad dimension and the product found.
void check(const TopologyParams& p) {
  const auto& dims = p.options_as<LatticeOptions>().dims;
  const std::int64_t workers = p.nodes;
  std::int64_t product = 1;
  bool too_large = false;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const std::int64_t d = dims[i];
    if (d < kSmallest) {
      throw TopologyError("dims[" + std::to_string(i) + "]",
                          "must be >= " + std::to_string(kSmallest) + ", got " + std::to_string(d));
    }
    if (too_large || d > workers / product) {
      too_large = true;  // avoids overflow; the product already exceeds workers
    } else {
      product *= d;
    }
  }
  if (too_large || product != workers) {
    throw TopologyError(
        "dims", "product of dims must equal workers (" + std::to_string(workers) + "), got " +
                    shown(nlohmann::json(dims)) + " = " +
                    (too_large ? "more than " + std::to_string(workers) : std::to_string(product)));
  }
}

// When building (also without a scenario).
const std::vector<std::int64_t>& checked_dims(const TopologyParams& p) {
  const auto& dims = p.options_as<LatticeOptions>().dims;
  std::int64_t product = 1;
  for (std::int64_t d : dims) {
    if (d < 1) throw TopologyError("dims", "every dimension must be >= 1");
    product = product > p.nodes ? product : product * d;
  }
  if (dims.empty() || product != p.nodes) {
    throw TopologyError("dims",
                        "product of dims must equal workers (" + std::to_string(p.nodes) + ")");
  }
  return dims;
}

const TopologyRegistration torus{{
    .name = "torus",
    .doc = "+-1 along each dimension with wrap-around (duplicates merged).",
    .keys = keys(),
    .facts = {.vertex_transitive = true},
    .read = read,
    .check = check,
    .make =
        [](const TopologyParams& p) {
          return GraphSchedule::fixed(p, torus_graph(checked_dims(p)));
        },
}};

const TopologyRegistration grid{{
    .name = "grid",
    .doc = "+-1 along each dimension, no wrap-around.",
    .keys = keys(),
    .read = read,
    .check = check,
    .make =
        [](const TopologyParams& p) {
          return GraphSchedule::fixed(p, grid_graph(checked_dims(p)));
        },
}};

}  // namespace
}  // namespace dlsim::topo
