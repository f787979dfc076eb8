// The keys of a compressor object (spec_compressor.cpp), for the algorithm kinds that
// take a second compressor (the SVRG family's `downlink_compressor`).
#pragma once

#include "sim/scenario/spec.hpp"

namespace dlsim::sim::spec {

/// algorithm.compressor's object, with kind-independent defaults (kind none): the common
/// keys and one variant per registered compressor.
Object compressor_object();

/// An optional key whose value is a compressor object. Algorithms declare their keys
/// while the program starts, when not every compressor may have registered yet, so the
/// key holds a placeholder that the key table replaces by compressor_object() when it is
/// built (spec_algorithm.cpp).
Key compressor_key(std::string name, std::string doc);
bool is_compressor_key(const Key& key);

}  // namespace dlsim::sim::spec
