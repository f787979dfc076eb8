// The one error type for bad input: where (a JSON path such as
// `network.links[2].from`, a flag such as `--set`, or a file) and what is wrong.
// The CLI prints it as `dlsim: error: <where>: <what>` and exits with code 2.
#pragma once

#include <stdexcept>
#include <string>

namespace dlsim::sim {

class InputError : public std::runtime_error {
 public:
  InputError(std::string where, std::string what)
      : std::runtime_error(where + ": " + what), where_(std::move(where)), what_(std::move(what)) {}
  const std::string& where() const { return where_; }
  const std::string& problem() const { return what_; }

 private:
  std::string where_;
  std::string what_;
};

}  // namespace dlsim::sim
