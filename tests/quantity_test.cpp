// Quantities with units (sim/scenario/quantity.hpp): every unit, spacing, exponents,
// bare numbers in SI base units, picosecond rounding, and rejection of garbage.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/scenario/quantity.hpp"

using dlsim::sim::parse_flops;
using dlsim::sim::parse_rate;
using dlsim::sim::parse_size_bits;
using dlsim::sim::parse_time;
using dlsim::sim::SimTime;
using nlohmann::json;

namespace {
std::int64_t ps(const json& v) {
  return parse_time(v).ps;
}
}  // namespace

TEST_CASE("time units convert to picoseconds", "[quantity]") {
  CHECK(ps("1ns") == 1'000);
  CHECK(ps("1us") == 1'000'000);
  CHECK(ps("5us") == 5'000'000);
  CHECK(ps("1ms") == 1'000'000'000);
  CHECK(ps("1s") == 1'000'000'000'000);
  CHECK(ps("2.5s") == 2'500'000'000'000);
  CHECK(ps("0s") == 0);
  CHECK(ps("0ns") == 0);
}

TEST_CASE("time rounds to the nearest picosecond", "[quantity]") {
  CHECK(ps("1.5ns") == 1'500);
  CHECK(ps("0.0004ns") == 0);  // 0.4 ps
  CHECK(ps("0.0006ns") == 1);  // 0.6 ps
  CHECK(ps(1e-12) == 1);
  CHECK(ps(0.4e-12) == 0);
  CHECK(parse_time("3.7us") == SimTime::from_seconds(3.7e-6));
}

TEST_CASE("time accepts spaces, exponents, signs and bare seconds", "[quantity]") {
  CHECK(ps("10 us") == 10'000'000);
  CHECK(ps("10   ms") == 10'000'000'000);
  CHECK(ps("1.5e3ns") == 1'500'000);
  CHECK(ps("1E-3s") == 1'000'000'000);
  CHECK(ps("+2us") == 2'000'000);
  CHECK(ps(".5us") == 500'000);
  CHECK(ps("-5us") == -5'000'000);  // the sign is parsed; ranges are the validator's job
  CHECK(ps(0.001) == 1'000'000'000);
  CHECK(ps(2) == 2'000'000'000'000);
  CHECK(ps(0) == 0);
}

TEST_CASE("rate units are bits per second, bytes count 8 bits", "[quantity]") {
  CHECK(parse_rate("1bps") == 1.0);
  CHECK(parse_rate("1Kbps") == 1e3);
  CHECK(parse_rate("1Mbps") == 1e6);
  CHECK(parse_rate("10Gbps") == 10e9);
  CHECK(parse_rate("10 Gbps") == 10e9);
  CHECK(parse_rate("1Tbps") == 1e12);
  CHECK(parse_rate("1Bps") == 8.0);
  CHECK(parse_rate("1KBps") == 8e3);
  CHECK(parse_rate("1MBps") == 8e6);
  CHECK(parse_rate("2GBps") == 16e9);
  CHECK(parse_rate("2.5e1Mbps") == Approx(25e6));
  CHECK(parse_rate(1e9) == 1e9);
  CHECK(parse_rate(0) == 0.0);
}

TEST_CASE("size units are bits, bytes count 8 bits", "[quantity]") {
  CHECK(parse_size_bits("1b") == 1.0);
  CHECK(parse_size_bits("1Kb") == 1e3);
  CHECK(parse_size_bits("1Mb") == 1e6);
  CHECK(parse_size_bits("1Gb") == 1e9);
  CHECK(parse_size_bits("64B") == 512.0);
  CHECK(parse_size_bits("1KB") == 8e3);
  CHECK(parse_size_bits("1MB") == 8e6);
  CHECK(parse_size_bits("1GB") == 8e9);
  CHECK(parse_size_bits("0B") == 0.0);
  CHECK(parse_size_bits("1.5 KB") == 12e3);
  CHECK(parse_size_bits(4096) == 4096.0);
}

TEST_CASE("flops units", "[quantity]") {
  CHECK(parse_flops("1FLOPS") == 1.0);
  CHECK(parse_flops("1KFLOPS") == 1e3);
  CHECK(parse_flops("1MFLOPS") == 1e6);
  CHECK(parse_flops("10GFLOPS") == 10e9);
  CHECK(parse_flops("1.5 TFLOPS") == 1.5e12);
  CHECK(parse_flops(5e10) == 5e10);
}

TEST_CASE("units are case sensitive and belong to one kind", "[quantity]") {
  CHECK_THROWS_AS(parse_rate("10gbps"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size_bits("64kB"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("5Us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("10Gbps"), std::invalid_argument);
  CHECK_THROWS_AS(parse_rate("5us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size_bits("1Gbps"), std::invalid_argument);
  CHECK_THROWS_AS(parse_flops("1Gb"), std::invalid_argument);
  CHECK_THROWS_AS(parse_rate("1Pbps"), std::invalid_argument);
}

TEST_CASE("garbage is rejected with a message that says what was expected", "[quantity]") {
  CHECK_THROWS_WITH(parse_rate("10 furlongs"),
                    Catch::Contains("unknown rate unit \"furlongs\"") && Catch::Contains("Gbps"));
  CHECK_THROWS_WITH(parse_rate("Gbps"), Catch::Contains("expected a rate"));
  CHECK_THROWS_WITH(parse_time(""), Catch::Contains("expected a time"));
  CHECK_THROWS_WITH(parse_time("-"), Catch::Contains("expected a time"));
  CHECK_THROWS_WITH(parse_time("10"), Catch::Contains("missing unit"));
  CHECK_THROWS_WITH(parse_time("nanns"), Catch::Contains("finite"));
  CHECK_THROWS_WITH(parse_time("infs"), Catch::Contains("finite"));
  CHECK_THROWS_WITH(parse_rate(std::numeric_limits<double>::quiet_NaN()),
                    Catch::Contains("finite"));
  CHECK_THROWS_WITH(parse_rate(std::numeric_limits<double>::infinity()), Catch::Contains("finite"));
  CHECK_THROWS_WITH(parse_rate(true),
                    Catch::Contains("expected a rate") && Catch::Contains("true"));
  CHECK_THROWS_AS(parse_time(nullptr), std::invalid_argument);
  CHECK_THROWS_AS(parse_time(json::array({1})), std::invalid_argument);
  CHECK_THROWS_AS(parse_time(" 5us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("5us "), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("5 u s"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("1,5us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("0x10us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("5eus"), std::invalid_argument);
  CHECK_THROWS_AS(parse_time("++5us"), std::invalid_argument);
  CHECK_THROWS_AS(parse_size_bits("1e999B"), std::invalid_argument);
}

TEST_CASE("times beyond the int64 picosecond clock are rejected", "[quantity]") {
  CHECK(parse_time("9000000s").ps == 9'000'000'000'000'000'000);
  CHECK_THROWS_WITH(parse_time("1e7s"), Catch::Contains("too large"));
  CHECK_THROWS_WITH(parse_time(-1e7), Catch::Contains("too large"));
}
