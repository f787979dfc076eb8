// The compressor registry (models/compress/registry.hpp): every registered kind builds
// from its example object, round-trips vectors, charges bits_for consistently with
// encode, and its keys (with their defaults) appear in the resolved scenario. A kind
// registered here, in the test alone, shows up in the key table, is validated by its own
// key's range, and runs in a scenario with the bits it charges.
#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>

#include "compress_helpers.hpp"
#include "models/compress/factory.hpp"
#include "run_helpers.hpp"
#include "sim/scenario/compressor_keys.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/load.hpp"

using namespace dlsim::models;
using dlsim::test::gaussian;
using nlohmann::json;

namespace {

// A test-only kind: every coordinate as a 16-bit integer round(v / step) (saturating), in
// 16 bits; decode multiplies by step. Its one key, `step`, has a default and a range.
class StepCompressor final : public Compressor {
 public:
  explicit StepCompressor(double step) : step_(step) {}
  void encode_into(const Eigen::VectorXd& v, std::mt19937_64& /*rng*/, Encoded& out) override {
    out.dimension = v.size();
    out.bits = bits_for(v.size());
    out.bytes.resize(2 * std::size_t(v.size()));
    for (Eigen::Index k = 0; k < v.size(); ++k) {
      const double q = std::clamp(std::round(v(k) / step_), -32768.0, 32767.0);
      const auto word = std::int16_t(q);
      std::memcpy(out.bytes.data() + 2 * k, &word, 2);
    }
  }
  void decode(const Encoded& message, Eigen::VectorXd& out) const override {
    out.resize(message.dimension);
    for (Eigen::Index k = 0; k < message.dimension; ++k) {
      std::int16_t word;
      std::memcpy(&word, message.bytes.data() + 2 * k, 2);
      out(k) = step_ * double(word);
    }
  }
  std::uint64_t bits_for(Eigen::Index dimension) const override {
    return 16 * std::uint64_t(dimension);
  }
  bool unbiased() const override { return false; }

 private:
  double step_;
};

class StepOptions final : public CompressorOptions {
 public:
  explicit StepOptions(double step) : step(step) {}
  std::unique_ptr<Compressor> build() const override {
    return std::make_unique<StepCompressor>(step);
  }
  double step;
};

std::vector<dlsim::spec::Key> step_keys() {
  using namespace dlsim::spec;
  return {defaulted("step", number().gt(0).le(1), 0.25, "Quantization step.")};
}

const CompressorRegistration registered{{
    .name = "test-step",
    .doc = "Test only: round(v / step) as 16-bit integers: 16d bits.",
    .bits = "16d",
    .keys = step_keys(),
    .read =
        [](const json& j) {
          return std::make_shared<StepOptions>(read_key(j, step_keys(), "step").get<double>());
        },
}};

// The kind's example object with its kind (and extra keys).
json example_of(const CompressorInfo& info, const json& extra = json::object()) {
  json object = info.example;
  object["kind"] = info.name;
  object.update(extra);
  return object;
}

}  // namespace

TEST_CASE("registry: the kinds, in name order, and the all-reducible ones") {
  const std::vector<std::string> names = CompressorRegistry::instance().names();
  const std::vector<std::string> expected = {"fp16", "lpc",      "none",      "qsgd", "random-k",
                                             "sign", "terngrad", "test-step", "top-k"};
  CHECK(names == expected);
  CHECK(all_reducible_kinds() == std::vector<std::string>{"fp16", "none"});
  CHECK(CompressorRegistry::instance().find(kUncompressed) != nullptr);
}

TEST_CASE("registry: every kind builds, round-trips and charges bits_for when fixed-size") {
  for (const CompressorInfo* info : CompressorRegistry::instance().all()) {
    INFO(info->name);
    const CompressorConfig config = parse_compressor(example_of(*info));
    CHECK(config.kind == info->name);
    REQUIRE(config.options);
    for (const Eigen::Index d : {1, 7, 64, 1000}) {
      INFO("d = " << d);
      auto c = build_compressor(config, {d});
      std::mt19937_64 rng{std::uint64_t(d)};
      Eigen::VectorXd out;
      // Zero decodes to zero for every kind (a zero range, scale, or selection of zeros).
      c->decode(c->encode(Eigen::VectorXd::Zero(d), rng), out);
      REQUIRE(out.size() == d);
      CHECK(out.isZero(0.0));
      // A random vector: the dimension survives, the bytes hold exactly the bits, a
      // fixed-size kind charges what it encodes, and the decoded values are finite.
      const Eigen::VectorXd v = gaussian(d, std::uint64_t(17 + d));
      const Encoded message = c->encode(v, rng);
      CHECK(message.dimension == d);
      CHECK(message.bytes.size() == (message.bits + 7) / 8);
      if (c->fixed_size()) CHECK(message.bits == c->bits_for(d));
      c->decode(message, out);
      REQUIRE(out.size() == d);
      CHECK(out.allFinite());
    }
  }
  // The exact round trips: fp32 rounding for none, the step grid for the test kind.
  const Eigen::VectorXd v = gaussian(50, 3);
  std::mt19937_64 rng(1);
  Eigen::VectorXd out;
  auto none = build_compressor(parse_compressor({{"kind", "none"}}), {50});
  none->decode(none->encode(v, rng), out);
  CHECK(dlsim::test::bitwise_equal(out, v.cast<float>().cast<double>()));
  auto step = build_compressor(parse_compressor({{"kind", "test-step"}, {"step", 0.5}}), {50});
  step->decode(step->encode(v, rng), out);
  for (Eigen::Index k = 0; k < 50; ++k) CHECK(out(k) == 0.5 * std::round(v(k) / 0.5));
}

TEST_CASE("registry: every kind's keys appear in the resolved scenario with their defaults") {
  for (const CompressorInfo* info : CompressorRegistry::instance().all()) {
    INFO(info->name);
    for (const char* section : {"compressor", "downlink_compressor"}) {
      INFO(section);
      json raw = {
          {"algorithm", {{"kind", "svrg"}, {"epoch_length", 5}, {section, example_of(*info)}}}};
      const json resolved = dlsim::sim::resolve_scenario(raw)["algorithm"][section];
      CHECK(resolved["kind"] == info->name);
      CHECK(resolved["error_feedback"] == false);
      CHECK(resolved["per_tensor"] == true);
      for (const dlsim::spec::Key& key : info->keys) {
        INFO(key.name);
        if (key.presence == dlsim::spec::Key::Presence::defaulted) {
          REQUIRE(resolved.contains(key.name));
          CHECK(resolved[key.name] == key.fallback);
        } else {
          CHECK(resolved.contains(key.name) == info->example.contains(key.name));
        }
      }
    }
  }
  // The key table's compressor object has one variant per registered kind.
  const dlsim::spec::Object object = dlsim::sim::spec::compressor_object();
  CHECK(object.variant_names() == CompressorRegistry::instance().names());
  REQUIRE(object.find_variant("test-step"));
  CHECK(object.find_variant("test-step")->keys.size() == 1);
}

TEST_CASE("registry: a kind registered in a test is validated, read once and runs") {
  using dlsim::sim::InputError;
  const json data = {
      {"source", "synthetic-regression"}, {"samples", 400}, {"features", 8}, {"noise", 0.0}};
  auto scenario = [&](json compressor) {
    return json{{"workers", 4},
                {"seed", 3},
                {"data", data},
                {"model", {{"kind", "least-squares"}}},
                {"algorithm",
                 {{"kind", "sgd"},
                  {"collective", "parameter-server"},
                  {"step_size", 0.1},
                  {"batch_size", 25},
                  {"compressor", compressor}}},
                {"stop", {{"iterations", 10}}},
                {"metrics", {{"every", {{"iterations", 5}}}}}};
  };
  // The range of `step` comes from its key: (0, 1].
  try {
    dlsim::sim::load_scenario(scenario({{"kind", "test-step"}, {"step", 2}}));
    FAIL("step 2 accepted");
  } catch (const InputError& e) {
    CHECK(e.where() == "algorithm.compressor.step");
  }
  // An unknown key of the kind is refused as for built-in kinds.
  CHECK_THROWS_AS(dlsim::sim::load_scenario(scenario({{"kind", "test-step"}, {"levels", 2}})),
                  InputError);

  const auto s = dlsim::sim::load_scenario(scenario({{"kind", "test-step"}}));
  CHECK(s.algorithm.compressor.kind == "test-step");
  CHECK(s.resolved["algorithm"]["compressor"]["step"] == 0.25);
  const auto* options = dynamic_cast<const StepOptions*>(s.algorithm.compressor.options.get());
  REQUIRE(options);
  CHECK(options->step == 0.25);

  // A run charges its bits: d = 8 features + bias = 9; each of 4 workers sends 16d bits up
  // and receives the fp32 model (32d bits) per iteration.
  const auto out = dlsim::test::run_scenario(scenario({{"kind", "test-step"}}), "test-step");
  const std::uint64_t d = 9, n = 4, iterations = 10;
  CHECK(out.summary["totals"]["bits_total"].get<std::uint64_t>() ==
        iterations * n * (16 * d + 32 * d));
}
