// What the centralized algorithms (sgd and its aliases, the SVRG family) share in their
// registrations: the `collective` key and the launch of SGD over the chosen collective.
#pragma once

#include <string>

#include "spec/key_table.hpp"

namespace dlsim::sim {

class Engine;
struct Training;

/// algorithm.collective, with the given documentation (one definition of its choices
/// and default for every centralized kind).
spec::Key collective_key(std::string doc);

/// The documentation of `collective` for the kinds whose server sends back an aggregate.
std::string aggregate_collective_doc();

/// Synchronous SGD over algorithm.collective (sgd, qsgd, ef-sgd).
void launch_sgd(Engine& engine, Training& t);

}  // namespace dlsim::sim
