// Quantities with units (docs/design.md §4): a JSON number in SI base units or a string
// "<number><unit>" (optional space). Rates and sizes use powers of 10.
//   time:  ns us ms s            -> SimTime (rounded to the picosecond)
//   rate:  bps Kbps Mbps Gbps Tbps, Bps KBps MBps GBps  -> bits per second
//   size:  b Kb Mb Gb, B KB MB GB                        -> bits
//   flops: FLOPS GFLOPS TFLOPS (also KFLOPS MFLOPS)      -> FLOP/s
// Each parser throws std::invalid_argument with a message that says what was
// expected; callers add the JSON path.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/engine/units.hpp"

namespace dlsim::sim {

SimTime parse_time(const nlohmann::json& value);
/// The time in picoseconds before rounding (1e-300 s is not 0 here).
double parse_time_ps(const nlohmann::json& value);
BitsPerSecond parse_rate(const nlohmann::json& value);
double parse_size_bits(const nlohmann::json& value);
Flops parse_flops(const nlohmann::json& value);

}  // namespace dlsim::sim
