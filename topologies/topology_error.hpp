// The error every topology function throws for impossible input: which key of the
// scenario's `topology` object is at fault ("kind", "dims", "degree", "p", "k",
// "path", "weights"; or "workers" for the node count) and what is wrong. The
// simulator turns it into an InputError at `topology.<key>` (topologies may not
// depend on sim).
#pragma once

#include <stdexcept>
#include <string>

#include "spec/key_error.hpp"

namespace dlsim::topo {

class TopologyError : public spec::KeyError {
 public:
  using KeyError::KeyError;
};

}  // namespace dlsim::topo
