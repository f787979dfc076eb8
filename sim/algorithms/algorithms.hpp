// The launchers of every algorithm; launch_algorithm() picks one by scenario kind.
#pragma once

#include <memory>

#include "sim/runtime/training.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

void launch_sgd_parameter_server(Engine& engine, Training& t);
void launch_sgd_allgather(Engine& engine, Training& t);
void launch_sgd_ring_allreduce(Engine& engine, Training& t);
void launch_dpsgd(Engine& engine, Training& t);
/// What tells the CHOCO family's kinds apart; their registrations pass it.
struct ChocoVariant {
  bool adaptive = false;    // AdaGossip's per-coordinate consensus step
  bool local_steps = true;  // false: CHOCO-gossip, pure averaging
};
void launch_choco(Engine& engine, Training& t, ChocoVariant variant);
void launch_choco_time_varying(Engine& engine, Training& t,
                               ChocoVariant variant);  // per-neighbour copies
void launch_sgp(Engine& engine, Training& t);
/// Compressed push-sum; `adaptive`: adag-sgp's banded per-coordinate step.
void launch_compressed_push_sum(Engine& engine, Training& t, bool adaptive);
void launch_svrg(Engine& engine, Training& t);  // svrg, prox-svrg, lpc-svrg
void launch_alpc_svrg(Engine& engine, Training& t);

/// Model holders whose deposits make an iteration complete (see Recorder).
int model_holders(const Scenario& s);
/// The communication graph of a decentralized scenario (`topology`), round by round;
/// built once per run and shared (shared_topology, sim/scenario/topology_build.hpp).
std::shared_ptr<const topo::GraphSchedule> communication_graph(const Scenario& s);
/// Simulated nodes: the workers, plus the parameter server when there is one.
int node_count(const Scenario& s);

}  // namespace dlsim::sim
