// The mixing step D-PSGD and SGP share: every arrival of the round, in the order of the
// exchange's in-neighbours, is decoded and added with its weight; a failed in-neighbour's
// weight goes to the node's own model (failures.hpp: the row rule, or for push-sum the
// share pushed to it coming back); then the node ends the mix. `Node` has add(weight,
// vector), add_own(weight) and end_mix(); decode(message, out) fills `received`.
#pragma once

#include <span>

#include "models/objectives/objective.hpp"
#include "sim/collectives/neighbour_exchange.hpp"

namespace dlsim::sim {

template <class Node, class Decode>
void mix_arrivals(std::span<const Arrival> arrivals, Node& node, models::Vector& received,
                  Decode&& decode) {
  for (const Arrival& a : arrivals) {
    if (!a.message) {
      node.add_own(a.weight);
      continue;
    }
    decode(*a.message, received);
    node.add(a.weight, received);
  }
  node.end_mix();
}

}  // namespace dlsim::sim
