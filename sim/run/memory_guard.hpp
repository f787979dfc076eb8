// Resource guard (issue 10): a scenario whose estimated memory exceeds the memory
// available now is refused with an InputError (exit 2) instead of being killed by the
// OOM killer halfway. Estimates, in bytes (8 per double):
//   data             what the source declares (DataOptions::memory, models/data/registry.hpp;
//                    generated data: samples · (features + 1) · 8), checked before loading;
//   model state      nodes · dimension · 6 vectors · 8 (model, gradient, momentum or
//                    iterate copy, received/gossip copies: an upper bound over the
//                    algorithms; profile models have dimension 0 and hold no vectors).
// Available memory: MemAvailable in /proc/meminfo (no check when it cannot be read).
#pragma once

#include <cstdint>
#include <optional>

#include "sim/scenario/scenario.hpp"

namespace dlsim::sim {

/// MemAvailable from /proc/meminfo in bytes, or nothing when it cannot be read.
std::optional<double> available_memory_bytes();

/// Throws InputError("data.<key>", e.g. data.samples) when the data set the source
/// declares would not fit.
void check_data_memory(const Scenario& s);

/// Throws InputError("workers") when every node's model state would not fit.
void check_model_memory(const Scenario& s, std::int64_t dimension, int nodes);

}  // namespace dlsim::sim
