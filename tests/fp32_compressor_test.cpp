// Fp32Compressor (`none`): float rounding, 32 bits per coordinate, little-endian layout.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <limits>
#include <random>

#include "models/compress/compressor.hpp"

using namespace dlsim::models;

TEST_CASE("fp32: decode(encode(v)) is v rounded to float") {
  Fp32Compressor c;
  std::mt19937_64 rng(1);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd v(1000);
  for (Eigen::Index k = 0; k < v.size(); ++k) v(k) = normal(rng) * std::pow(10.0, k % 20 - 10);
  v(0) = 0.1;  // not representable: must round
  v(1) = -0.0;
  v(2) = std::numeric_limits<double>::infinity();
  const Encoded message = c.encode(v, rng);
  Eigen::VectorXd out;
  c.decode(message, out);
  REQUIRE(out.size() == v.size());
  for (Eigen::Index k = 0; k < v.size(); ++k) {
    INFO("k = " << k);
    CHECK(out(k) == double(static_cast<float>(v(k))));
  }
  CHECK(out(0) != 0.1);
  CHECK(std::signbit(out(1)));
}

TEST_CASE("fp32: 32 bits per coordinate") {
  Fp32Compressor c;
  std::mt19937_64 rng(2);
  for (const Eigen::Index d : {0, 1, 7, 1000}) {
    const Encoded message = c.encode(Eigen::VectorXd::Ones(d), rng);
    CHECK(message.bits == 32 * std::uint64_t(d));
    CHECK(message.bytes.size() == 4 * std::size_t(d));
    CHECK(c.bits_for(d) == 32 * std::uint64_t(d));
  }
}

TEST_CASE("fp32: little-endian IEEE binary32 layout") {
  Fp32Compressor c;
  std::mt19937_64 rng(3);
  Eigen::VectorXd v(2);
  v << 1.0, -2.5;  // 0x3f800000, 0xc0200000
  const Encoded message = c.encode(v, rng);
  REQUIRE(message.bytes.size() == 8);
  const std::byte expected[8] = {std::byte{0x00}, std::byte{0x00}, std::byte{0x80},
                                 std::byte{0x3f}, std::byte{0x00}, std::byte{0x00},
                                 std::byte{0x20}, std::byte{0xc0}};
  for (int i = 0; i < 8; ++i) CHECK(message.bytes[std::size_t(i)] == expected[i]);
}

TEST_CASE("fp32: encoding draws nothing from the rng; malformed messages are rejected") {
  Fp32Compressor c;
  std::mt19937_64 rng(4), untouched(4);
  c.encode(Eigen::VectorXd::Ones(5), rng);
  CHECK(rng == untouched);

  Encoded bad;
  bad.bytes.resize(6);
  bad.bits = 48;
  Eigen::VectorXd out;
  CHECK_THROWS_AS(c.decode(bad, out), std::invalid_argument);
  bad.bytes.resize(8);
  bad.bits = 60;
  CHECK_THROWS_AS(c.decode(bad, out), std::invalid_argument);
}
