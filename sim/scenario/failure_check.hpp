// The checks of network.faults.fail and fail_timeout (node failures, issue 10;
// sim/runtime/node_failures.hpp): which algorithms and graphs support them, valid and
// distinct worker ids, at least one survivor, and a connected graph of survivors.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// Throws InputError (path network.faults.fail..., or network.faults.fail_timeout) when
/// the scenario's node failures cannot be simulated as documented. `resolved` is the
/// resolved document `s` was read from (to see whether fail_timeout was given).
void check_node_failures(const Scenario& s, const nlohmann::json& resolved);

}  // namespace dlsim::sim
