// Parsers for quantities with units (see quantity.hpp). A string is
// "<number><spaces?><unit>"; the number is parsed with std::from_chars so that
// locale never matters, and non-finite values are rejected.
#include "sim/scenario/quantity.hpp"

#include <charconv>
#include <cmath>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>

namespace dlsim::sim {
namespace {

struct Unit {
  std::string_view name;
  double factor;  // base units per unit
};

// What a quantity kind looks like, for parsing and for error messages.
struct QuantityKind {
  std::string_view noun;     // "time"
  std::string_view example;  // "5us"
  std::string_view base;     // "seconds"
  double number_factor;      // base units per bare JSON number
  std::span<const Unit> units;
};

// Time is parsed straight into picoseconds so that "1.5ns" is exactly 1500 ps.
constexpr Unit kTimeUnits[] = {{"ns", 1e3}, {"us", 1e6}, {"ms", 1e9}, {"s", 1e12}};
constexpr Unit kRateUnits[] = {{"bps", 1.0},  {"Kbps", 1e3},  {"Mbps", 1e6},
                               {"Gbps", 1e9}, {"Tbps", 1e12}, {"Bps", 8.0},
                               {"KBps", 8e3}, {"MBps", 8e6},  {"GBps", 8e9}};
constexpr Unit kSizeUnits[] = {{"b", 1.0}, {"Kb", 1e3}, {"Mb", 1e6}, {"Gb", 1e9},
                               {"B", 8.0}, {"KB", 8e3}, {"MB", 8e6}, {"GB", 8e9}};
constexpr Unit kFlopsUnits[] = {
    {"FLOPS", 1.0}, {"KFLOPS", 1e3}, {"MFLOPS", 1e6}, {"GFLOPS", 1e9}, {"TFLOPS", 1e12}};

constexpr QuantityKind kTime{"time", "5us", "seconds", 1e12, kTimeUnits};
constexpr QuantityKind kRate{"rate", "10Gbps", "bits per second", 1.0, kRateUnits};
constexpr QuantityKind kSize{"size", "64B", "bits", 1.0, kSizeUnits};
constexpr QuantityKind kFlops{"speed", "10GFLOPS", "FLOP/s", 1.0, kFlopsUnits};

std::string unit_list(const QuantityKind& kind) {
  std::string out;
  for (const auto& u : kind.units) {
    if (!out.empty()) out += ", ";
    out += u.name;
  }
  return out;
}

[[noreturn]] void fail(const QuantityKind& kind, const nlohmann::json& value) {
  throw std::invalid_argument("expected a " + std::string(kind.noun) + " (a number of " +
                              std::string(kind.base) + " or a string such as \"" +
                              std::string(kind.example) + "\"), got " + value.dump());
}

double finite_or_throw(double x, const nlohmann::json& value) {
  if (!std::isfinite(x))
    throw std::invalid_argument("must be finite (within ±1.8e308), got " + value.dump());
  return x;
}

// Returns the quantity in base units (picoseconds for time).
double parse_quantity(const nlohmann::json& value, const QuantityKind& kind) {
  if (value.is_number()) return finite_or_throw(value.get<double>(), value) * kind.number_factor;
  if (!value.is_string()) fail(kind, value);

  const std::string& text = value.get_ref<const std::string&>();
  const char* first = text.data();
  const char* last = text.data() + text.size();
  if (first != last && *first == '+') ++first;  // from_chars does not take a plus sign
  double number = 0.0;
  auto [rest, ec] = std::from_chars(first, last, number);
  if (ec == std::errc::result_out_of_range) {
    throw std::invalid_argument("number out of range in " + value.dump());
  }
  if (ec != std::errc() || first == text.data() + text.size()) fail(kind, value);
  finite_or_throw(number, value);

  while (rest != last && *rest == ' ') ++rest;
  const std::string_view unit(rest, std::size_t(last - rest));
  if (unit.empty()) {
    throw std::invalid_argument("missing unit in " + value.dump() +
                                "; expected one of: " + unit_list(kind) +
                                " (or a plain number of " + std::string(kind.base) + ")");
  }
  for (const auto& u : kind.units) {
    // "1e308Tbps" is a finite number times a finite factor, but not finite.
    if (u.name == unit) return finite_or_throw(number * u.factor, value);
  }
  throw std::invalid_argument("unknown " + std::string(kind.noun) + " unit \"" + std::string(unit) +
                              "\" in " + value.dump() + "; expected one of: " + unit_list(kind));
}

}  // namespace

double parse_time_ps(const nlohmann::json& value) {
  return parse_quantity(value, kTime);
}

SimTime parse_time(const nlohmann::json& value) {
  const double ps = parse_quantity(value, kTime);
  // int64 picoseconds hold about ±106 days of simulated time.
  if (std::fabs(ps) >= 9.2e18) {
    throw std::invalid_argument(
        "time too large for the simulator clock (at most about 106 "
        "days), got " +
        value.dump());
  }
  return SimTime::from_ps(std::llround(ps));
}

BitsPerSecond parse_rate(const nlohmann::json& value) {
  return parse_quantity(value, kRate);
}

double parse_size_bits(const nlohmann::json& value) {
  return parse_quantity(value, kSize);
}

Flops parse_flops(const nlohmann::json& value) {
  return parse_quantity(value, kFlops);
}

}  // namespace dlsim::sim
