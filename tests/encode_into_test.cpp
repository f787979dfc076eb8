// encode_into (models/compress/compressor.hpp) against a second computation: for every
// compressor kind and chain, encoding into one dirty, larger buffer that is reused
// message after message gives exactly the bits, dimension and bytes of a fresh encode()
// by an identical instance with an identical rng, and never reallocates that buffer.
#include <catch2/catch.hpp>

#include <random>

#include "compress_helpers.hpp"
#include "models/compress/factory.hpp"

using namespace dlsim::models;
using dlsim::test::awkward_vectors;
using dlsim::test::gaussian;
using nlohmann::json;

namespace {

std::unique_ptr<Compressor> chain(const json& options, std::vector<Eigen::Index> sizes) {
  return build_compressor(parse_compressor(options), sizes);
}

const std::vector<json>& kinds() {
  static const std::vector<json> all = {
      {{"kind", "none"}},
      {{"kind", "fp16"}},
      {{"kind", "sign"}},
      {{"kind", "terngrad"}},
      {{"kind", "qsgd"}, {"levels", 3}},
      {{"kind", "qsgd"}, {"levels", 5}, {"coding", "elias"}},
      {{"kind", "qsgd"}, {"levels", 2}, {"bucket", 7}, {"biased", true}},
      {{"kind", "lpc"}, {"bits", 3}, {"clip", "norm"}},
      {{"kind", "lpc"}, {"bits", 4}, {"clip", {{"kind", "adaptive"}, {"factor", 0.8}}}},
      {{"kind", "lpc"}, {"bits", "auto"}, {"clip", {{"kind", "fixed"}, {"value", 0.5}}}},
      {{"kind", "top-k"}, {"ratio", 0.9}},
      {{"kind", "random-k"}, {"ratio", 0.8}, {"unbiased", true}},
  };
  return all;
}

/// A buffer full of garbage, larger than any message here.
Encoded dirty_buffer() {
  Encoded e;
  e.bytes.assign(4096, std::byte{0xab});
  e.bits = 12345;
  e.dimension = 999;
  return e;
}

}  // namespace

TEST_CASE("encode_into a reused dirty buffer equals a fresh encode, for every kind") {
  // Per-tensor split (sizes 30 + 20 = 50), or one tensor; with and without error feedback.
  const std::vector<std::vector<Eigen::Index>> tensor_layouts = {{50}, {30, 20}};
  for (const json& base : kinds()) {
    for (const bool feedback : {false, true}) {
      for (const auto& sizes : tensor_layouts) {
        json options = base;
        options["error_feedback"] = feedback;
        INFO(options.dump() << " tensors " << sizes.size());
        auto fresh = chain(options, sizes);
        auto reused = chain(options, sizes);
        std::mt19937_64 fresh_rng(7), reused_rng(7);
        Encoded buffer = dirty_buffer();
        const std::byte* storage = buffer.bytes.data();
        int messages = 0;
        for (std::uint64_t round = 0; round < 3; ++round) {
          for (const auto& [name, v] : awkward_vectors(50, 11 + round)) {
            INFO(name << " round " << round);
            const Encoded expected = fresh->encode(v, fresh_rng);
            reused->encode_into(v, reused_rng, buffer);
            REQUIRE(buffer.bits == expected.bits);
            REQUIRE(buffer.dimension == expected.dimension);
            REQUIRE(buffer.bytes == expected.bytes);
            REQUIRE(buffer.bytes.size() == (buffer.bits + 7) / 8);
            CHECK(buffer.bytes.data() == storage);  // capacity reused, never reallocated
            ++messages;
          }
        }
        CHECK(messages == 21);
        CHECK(fresh_rng() == reused_rng());  // the same draws
      }
    }
  }
}

TEST_CASE("encode_into across changing dimensions (0, 1, 63, 64, 65, 300) equals fresh") {
  for (const json& options : kinds()) {
    INFO(options.dump());
    auto fresh = chain(options, {1});  // one tensor: no per-tensor split for these lengths
    auto reused = chain(options, {1});
    std::mt19937_64 fresh_rng(3), reused_rng(3);
    Encoded buffer = dirty_buffer();
    for (int pass = 0; pass < 2; ++pass) {
      for (const Eigen::Index d : {300, 0, 1, 63, 64, 65, 300, 2}) {
        INFO("d = " << d << " pass " << pass);
        const Eigen::VectorXd v = gaussian(d, std::uint64_t(d + 100 * pass));
        const Encoded expected = fresh->encode(v, fresh_rng);
        reused->encode_into(v, reused_rng, buffer);
        REQUIRE(buffer.bits == expected.bits);
        REQUIRE(buffer.dimension == expected.dimension);
        REQUIRE(buffer.bytes == expected.bytes);
        if (d > 0) {  // and it decodes like the fresh message
          Eigen::VectorXd a, b;
          fresh->decode(expected, a);
          reused->decode(buffer, b);
          REQUIRE(a.size() == d);
          REQUIRE(dlsim::test::bitwise_equal(a, b));
        }
      }
    }
  }
}
