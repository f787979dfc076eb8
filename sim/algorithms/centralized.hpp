// What the centralized algorithms (sgd and its aliases, the SVRG family) share in their
// registrations: the `collective` key and the launch of SGD over the chosen collective.
#pragma once

#include <string>

#include "models/objectives/objective.hpp"
#include "spec/key_table.hpp"

namespace dlsim::sim {

class Engine;
struct Scenario;
struct Training;

/// algorithm.collective, with the given documentation (one definition of its choices
/// and default for every centralized kind).
spec::Key collective_key(std::string doc);

/// The documentation of `collective` for the kinds whose server sends back an aggregate.
std::string aggregate_collective_doc();

/// Synchronous SGD over algorithm.collective (sgd, qsgd, ef-sgd).
void launch_sgd(Engine& engine, Training& t);

/// The worker processes launch_sgd spawns: one when ring all-reduce takes its exact
/// shortcut (ring_allreduce.hpp), else every worker (AlgorithmInfo::simulated_workers).
int sgd_simulated_workers(const Scenario& s, const models::Objective& objective);

}  // namespace dlsim::sim
