// Test helpers for the gossip algorithms: a pure-averaging scenario (model `consensus`,
// no data) and the columns of metrics.csv by name.
#pragma once

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dlsim::test {

/// `workers` vectors of `dimension` coordinates averaged by `kind` for `iterations`
/// rounds on `topology`, a metrics row every `every` rounds.
inline nlohmann::json averaging_scenario(const std::string& kind, const nlohmann::json& topology,
                                         int workers, int dimension, int iterations,
                                         int every = 1) {
  return {{"workers", workers},
          {"seed", 7},
          {"data", {{"source", "none"}}},
          {"model", {{"kind", "consensus"}, {"dimension", dimension}}},
          {"algorithm", {{"kind", kind}}},
          {"topology", topology},
          {"stop", {{"iterations", iterations}}},
          {"metrics", {{"every", {{"iterations", every}}}}}};
}

/// The values of column `name` of metrics.csv, one per row (empty cells: NaN).
inline std::vector<double> metrics_column(const std::string& csv, const std::string& name) {
  std::istringstream lines(csv);
  std::string line;
  std::getline(lines, line);
  std::size_t column = 0;
  {
    std::istringstream header(line);
    std::string cell;
    while (std::getline(header, cell, ',') && cell != name) ++column;
  }
  std::vector<double> values;
  while (std::getline(lines, line)) {
    std::istringstream row(line);
    std::string cell;
    for (std::size_t c = 0; c <= column; ++c) std::getline(row, cell, ',');
    values.push_back(cell.empty() ? std::nan("") : std::stod(cell));
  }
  return values;
}

}  // namespace dlsim::test
