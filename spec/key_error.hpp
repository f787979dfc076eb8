// An error that names the key at fault, relative to the object being read ("bits",
// "layers[2].kernel", "workers"), and what is wrong. Components below the simulator
// (models/, topologies/) throw their own subclass of it; the simulator, which knows where
// that object sits in the scenario, turns it into an InputError at `<path>.<key>`.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

namespace dlsim::spec {

class KeyError : public std::invalid_argument {
 public:
  KeyError(std::string key, const std::string& what)
      : std::invalid_argument(what), key_(std::move(key)) {}
  const std::string& key() const { return key_; }

 private:
  std::string key_;
};

}  // namespace dlsim::spec
