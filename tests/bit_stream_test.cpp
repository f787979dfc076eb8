// BitWriter/BitReader: fixed-width fields and Elias-omega codes, checked against a
// textbook string encoder of Elias-omega (MSB-first groups) for code lengths.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "models/compress/bit_stream.hpp"

using namespace dlsim::models;

namespace {

// Elias (1975): code(n) = code of the groups then "0"; group = binary(n), recurse on len−1.
std::string textbook_elias_omega(std::uint64_t n) {
  std::string code = "0";
  while (n > 1) {
    std::string binary;
    for (std::uint64_t m = n; m > 0; m >>= 1) binary.insert(binary.begin(), char('0' + (m & 1)));
    code = binary + code;
    n = binary.size() - 1;
  }
  return code;
}

}  // namespace

TEST_CASE("bit stream: ceil_log2 and Elias-omega lengths") {
  CHECK(ceil_log2(1) == 0);
  CHECK(ceil_log2(2) == 1);
  CHECK(ceil_log2(3) == 2);
  CHECK(ceil_log2(4) == 2);
  CHECK(ceil_log2(5) == 3);
  CHECK(ceil_log2(1000000) == 20);
  CHECK(ceil_log2(std::uint64_t(1) << 40) == 40);
  CHECK(textbook_elias_omega(1) == "0");
  CHECK(textbook_elias_omega(2) == "100");
  CHECK(textbook_elias_omega(4) == "101000");
  CHECK(textbook_elias_omega(16) == "10100100000");
  for (std::uint64_t n = 1; n < 5000; ++n) {
    INFO("n = " << n);
    REQUIRE(elias_omega_bits(n) == int(textbook_elias_omega(n).size()));
  }
  const std::uint64_t big = 0xfedcba9876543210ULL;
  CHECK(elias_omega_bits(big) == int(textbook_elias_omega(big).size()));
}

TEST_CASE("bit stream: random fields of every width round-trip; size is ceil(bits/8)") {
  std::mt19937_64 rng(11);
  std::vector<std::pair<std::uint64_t, int>> fields;
  BitWriter out;
  std::uint64_t expected_bits = 0;
  for (int i = 0; i < 20000; ++i) {
    const int width = int(rng() % 65);
    const std::uint64_t value = width == 64 ? rng() : rng() & ((std::uint64_t(1) << width) - 1);
    fields.emplace_back(value, width);
    out.put(value, width);
    expected_bits += std::uint64_t(width);
  }
  REQUIRE(out.bits() == expected_bits);
  const auto bytes = out.finish();
  REQUIRE(bytes.size() == (expected_bits + 7) / 8);
  BitReader in(bytes, expected_bits);
  for (const auto& [value, width] : fields) REQUIRE(in.get(width) == value);
  CHECK(in.remaining() == 0);
  CHECK_THROWS_AS(in.get(1), std::invalid_argument);
}

TEST_CASE("bit stream: LSB-first layout in little-endian bytes") {
  BitWriter out;
  out.put(1, 1);     // bit 0
  out.put(0, 2);     // bits 1-2
  out.put(0x1f, 5);  // bits 3-7
  out.put(0xab, 8);  // byte 1
  out.put(1, 1);     // bit 16
  const auto bytes = out.finish();
  REQUIRE(bytes.size() == 3);
  CHECK(bytes[0] == std::byte{0xf9});
  CHECK(bytes[1] == std::byte{0xab});
  CHECK(bytes[2] == std::byte{0x01});
}

TEST_CASE("bit stream: Elias-omega codes interleaved with fields decode back") {
  std::mt19937_64 rng(12);
  std::vector<std::uint64_t> numbers;
  BitWriter out;
  std::uint64_t expected_bits = 0;
  for (int i = 0; i < 5000; ++i) {
    const int magnitude = int(rng() % 64);
    std::uint64_t n = (rng() >> (63 - magnitude)) | 1;
    if (i < 100) n = std::uint64_t(i + 1);
    numbers.push_back(n);
    out.put_elias_omega(n);
    out.put(n & 1, 1);
    expected_bits += std::uint64_t(elias_omega_bits(n)) + 1;
  }
  CHECK_THROWS_AS(out.put_elias_omega(0), std::invalid_argument);
  REQUIRE(out.bits() == expected_bits);
  const auto bytes = out.finish();
  BitReader in(bytes, expected_bits);
  for (const auto n : numbers) {
    REQUIRE(in.get_elias_omega() == n);
    REQUIRE(in.get(1) == (n & 1));
  }
  CHECK(in.remaining() == 0);
}

TEST_CASE("bit stream: a reader refuses a buffer of the wrong size") {
  std::vector<std::byte> bytes(3);
  CHECK_THROWS_AS(BitReader(bytes, 25), std::invalid_argument);
  CHECK_NOTHROW(BitReader(bytes, 24));
  CHECK_NOTHROW(BitReader(bytes, 17));
}

namespace {
// put_fields of `count` random fields of every width up to Field's bits, after `offset`
// bits, against put() of each.
template <class Field>
void check_put_fields(std::mt19937_64& rng, std::size_t count) {
  constexpr int kMostWidth = 8 * int(sizeof(Field));
  for (int width = 1; width <= kMostWidth; ++width) {
    for (const int offset : {0, 1, 31, 63}) {
      const std::uint64_t mask = width == 64 ? ~std::uint64_t(0) : (std::uint64_t(1) << width) - 1;
      std::vector<Field> values(count + std::size_t(width));
      for (auto& v : values) v = Field(rng() & mask);
      BitWriter fast, slow;
      fast.put(0x5a5a5a5a5a5a5a5aULL & ((std::uint64_t(1) << offset) - 1), offset);
      slow.put(0x5a5a5a5a5a5a5a5aULL & ((std::uint64_t(1) << offset) - 1), offset);
      fast.put_fields(values.data(), values.size(), width);
      for (const auto v : values) slow.put(v, width);
      fast.put(1, 1);
      slow.put(1, 1);
      INFO(kMostWidth << "-bit fields, width " << width << " offset " << offset);
      REQUIRE(fast.bits() == slow.bits());
      REQUIRE(fast.finish() == slow.finish());
    }
  }
}
}  // namespace

TEST_CASE("bit stream: put_fields packs like put, at every alignment and width") {
  std::mt19937_64 rng(13);
  check_put_fields<std::uint32_t>(rng, 1000);
  check_put_fields<std::uint64_t>(rng, 300);  // up to whole words
}

// A stream's bits one at a time (the reference the byte copies are checked against).
std::vector<bool> bits_of(const std::vector<std::byte>& bytes, std::uint64_t bits) {
  std::vector<bool> out;
  for (std::uint64_t i = 0; i < bits; ++i)
    out.push_back(((std::to_integer<unsigned>(bytes[std::size_t(i / 8)]) >> (i % 8)) & 1) != 0);
  return out;
}

TEST_CASE("bit stream: put_bytes and get_bytes copy a stream's bits at every alignment") {
  std::mt19937_64 rng(14);
  for (int offset = 0; offset < 130; ++offset)
    for (std::uint64_t length : {0, 1, 7, 8, 9, 55, 56, 57, 63, 64, 65, 127, 128, 200, 1000}) {
      // A source stream of `length` random bits, packed by put.
      BitWriter source;
      std::vector<bool> expected;
      for (std::uint64_t i = 0; i < length; ++i) {
        const bool bit = (rng() & 1) != 0;
        source.put_bit(bit);
        expected.push_back(bit);
      }
      const std::vector<std::byte> source_bytes = source.finish();

      // Written after `offset` bits and followed by a marker: the same bits as put gives.
      BitWriter joined, reference;
      for (int i = 0; i < offset; ++i) {
        const bool bit = (i * 7) % 3 == 0;
        joined.put_bit(bit);
        reference.put_bit(bit);
      }
      joined.put_bytes(source_bytes.data(), length);
      for (const bool bit : expected) reference.put_bit(bit);
      joined.put(0x5a, 7);
      reference.put(0x5a, 7);
      INFO("offset " << offset << ", length " << length);
      REQUIRE(joined.bits() == reference.bits());
      const std::vector<std::byte> joined_bytes = joined.finish();
      REQUIRE(joined_bytes == reference.finish());

      // Read back from `offset`: the source's bytes exactly (last byte's spare bits zero,
      // even with the marker right after), and the reader then at the marker.
      BitReader in(joined_bytes, joined.bits());
      in.skip(std::uint64_t(offset));
      std::vector<std::byte> copy(3, std::byte{0xff});  // stale contents must not survive
      in.get_bytes(length, copy);
      CHECK(copy == source_bytes);
      CHECK(bits_of(copy, length) == expected);
      CHECK(in.get(7) == 0x5a);
      CHECK(in.remaining() == 0);
    }
  // Past the end: refused, and the reader has not moved.
  const std::vector<std::byte> two(2, std::byte{1});
  BitReader in(two, 16);
  in.skip(3);
  std::vector<std::byte> out;
  CHECK_THROWS_AS(in.get_bytes(14, out), std::invalid_argument);
  CHECK(in.position() == 3);
}
