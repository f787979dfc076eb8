// `dlsim sweep` (docs/design.md §3): registered on the CLI11 app by main.cpp, then run
// when it was the chosen subcommand.
#pragma once

#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace dlsim::tool {

class SweepCommand {
 public:
  explicit SweepCommand(CLI::App& app);
  bool parsed() const { return command_->parsed(); }
  /// Runs the sweep (or --merge); returns the exit code. InputErrors that happen
  /// before MPI is involved propagate to main's handler (exit 2).
  int run();

 private:
  int sweep();
  int merge();

  CLI::App* command_;
  std::string scenario_;
  std::vector<std::string> sets_;
  std::vector<std::string> grids_;
  int repeat_ = 0;
  int jobs_ = 0;
  std::string out_;
  std::string shard_;
  bool resume_ = false;
  bool merge_ = false;
  bool quiet_ = false;
  std::string memory_limit_;  // --memory-limit: checked per point, passed to every run
};

}  // namespace dlsim::tool
