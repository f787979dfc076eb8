// What the SVRG family (svrg, lpc-svrg, alpc-svrg) shares in its registrations: the
// keys of the snapshot/epoch structure and the checks that go with them.
#pragma once

#include <vector>

#include "spec/key_table.hpp"

namespace dlsim::sim {

struct Scenario;

/// collective, epoch_length, downlink_compressor.
std::vector<spec::Key> svrg_keys();
/// snapshot: last | average (svrg, lpc-svrg).
spec::Key snapshot_key();
/// quantize_snapshot (lpc-svrg, alpc-svrg).
spec::Key quantize_snapshot_key();
/// The compressor kind the low-precision kinds default to (lpc, docs/algorithms.md §1.1).
inline constexpr const char* kLowPrecisionCompressor = "lpc";

/// The family's own checks: a downlink only from a parameter server, its options, and an
/// explicit epoch_length for models without data. Throws InputError.
void check_svrg_family(const Scenario& s);

}  // namespace dlsim::sim
