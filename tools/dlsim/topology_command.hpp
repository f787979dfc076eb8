// `dlsim topology KIND --workers N [--set KEY=VALUE]... [--seed S] [--json]`
// (docs/design.md §3, §9): registered on the CLI11 app by main.cpp, then run when it was
// the chosen subcommand.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dlsim::tool {

class TopologyCommand {
 public:
  explicit TopologyCommand(CLI::App& app);
  bool parsed() const { return command_->parsed(); }
  /// Prints the facts; bad input throws InputError (main: exit 2).
  int run();

 private:
  CLI::App* command_;
  std::string kind_;
  std::int64_t workers_ = 0;
  std::vector<std::string> sets_;
  std::uint64_t seed_ = 1;
  bool json_ = false;
};

}  // namespace dlsim::tool
