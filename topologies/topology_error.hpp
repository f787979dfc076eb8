// The error every topology function throws for impossible input: which key of the
// scenario's `topology` object is at fault ("kind", "dims", "degree", "p", "k",
// "path", "weights"; or "workers" for the node count) and what is wrong. The
// simulator turns it into an InputError at `topology.<key>` (topologies may not
// depend on sim).
#pragma once

#include <stdexcept>
#include <string>

namespace dlsim::topo {

class TopologyError : public std::invalid_argument {
 public:
  TopologyError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

}  // namespace dlsim::topo
