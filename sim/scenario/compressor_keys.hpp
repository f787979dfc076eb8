// The keys of a compressor object (spec_compressor.cpp), for the algorithm kinds that
// take a second compressor (the SVRG family's `downlink_compressor`).
#pragma once

#include "sim/scenario/spec.hpp"

namespace dlsim::sim::spec {

/// algorithm.compressor's object, with kind-independent defaults (kind none).
Object compressor_object();

}  // namespace dlsim::sim::spec
