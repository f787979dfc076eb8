// The progress line on stderr (docs/design.md §3): simulated time, iteration, epoch, bits
// and an ETA from the fraction of the stop criteria reached. Redrawn in place at most
// five times a second; only used when stderr is a terminal and --quiet is not given.
#pragma once

#include <cstdio>

#include "sim/metrics/observer.hpp"

namespace dlsim::sim {

class ProgressLine final : public MetricsObserver {
 public:
  explicit ProgressLine(std::FILE* out) : out_(out) {}
  void on_row(const MetricsRow&) override {}
  void on_progress(const Progress& p) override;
  void on_finish(const nlohmann::json&) override;

 private:
  std::FILE* out_;
  bool drawn_ = false;
};

}  // namespace dlsim::sim
