// The launchers of every algorithm; launch_algorithm() picks one by scenario kind.
#pragma once

#include "sim/algorithms/training.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::sim {

void launch_sgd_parameter_server(Engine& engine, Training& t);
void launch_sgd_allgather(Engine& engine, Training& t);
void launch_sgd_ring_allreduce(Engine& engine, Training& t);
void launch_dpsgd(Engine& engine, Training& t);
void launch_choco(Engine& engine, Training& t);               // choco-sgd, adag-sgd, choco-gossip
void launch_choco_time_varying(Engine& engine, Training& t);  // per-neighbour copies
void launch_sgp(Engine& engine, Training& t);
void launch_compressed_push_sum(Engine& engine, Training& t);  // choco-sgp, adag-sgp
void launch_svrg(Engine& engine, Training& t);                 // svrg, prox-svrg, lpc-svrg
void launch_alpc_svrg(Engine& engine, Training& t);

/// Model holders whose deposits make an iteration complete (see Recorder).
int model_holders(const Scenario& s);
/// The communication graph of a decentralized scenario (`topology`), round by round.
topo::GraphSchedule communication_graph(const Scenario& s);
/// Simulated nodes: the workers, plus the parameter server when there is one.
int node_count(const Scenario& s);

}  // namespace dlsim::sim
