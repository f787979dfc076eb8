// Wrappers and chains: error feedback satisfies e' = e + v − C(e + v) exactly; per-tensor
// application concatenates the slices' messages (bits = Σ); the factory builds the chain
// from a scenario's compressor object and refuses bad parameters; compressed gossip
// (CHOCO-gossip, Koloskova, Stich & Jaggi, ICML 2019) converges to the true average.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>

#include "compress_helpers.hpp"
#include "models/compress/bit_stream.hpp"
#include "models/compress/factory.hpp"
#include "models/compress/wrappers.hpp"

using namespace dlsim::models;
using dlsim::test::awkward_vectors;
using dlsim::test::bitwise_equal;
using dlsim::test::gaussian;
using nlohmann::json;

namespace {

std::unique_ptr<Compressor> chain(const json& options, std::vector<Eigen::Index> sizes) {
  return build_compressor(parse_compressor(options), sizes);
}

// The typed options of a stochastic-quantizer kind (qsgd, lpc, terngrad).
QuantizerOptions quantizer_of(const json& options) {
  const auto config = parse_compressor(options);
  const auto* typed = dynamic_cast<const QuantizerKindOptions*>(config.options.get());
  REQUIRE(typed);
  return typed->quantizer;
}

}  // namespace

TEST_CASE("error feedback: e' = e + v - C(e + v) exactly, and the message is C's") {
  const std::vector<json> kinds = {
      {{"kind", "none"}},
      {{"kind", "fp16"}},
      {{"kind", "sign"}},
      {{"kind", "terngrad"}},
      {{"kind", "qsgd"}, {"levels", 3}},
      {{"kind", "lpc"}, {"bits", 3}, {"clip", "norm"}},
      {{"kind", "top-k"}, {"ratio", 0.9}},
      {{"kind", "random-k"}, {"k", 3}, {"unbiased", true}},
  };
  for (const auto& options : kinds) {
    INFO(options.dump());
    json with_ef = options;
    with_ef["error_feedback"] = true;
    auto ef_chain = chain(with_ef, {50});
    auto* ef = dynamic_cast<ErrorFeedback*>(ef_chain.get());
    REQUIRE(ef != nullptr);
    CHECK_FALSE(ef->unbiased());
    auto inner = chain(options, {50});
    std::mt19937_64 rng(1), inner_rng(1);
    Eigen::VectorXd e = Eigen::VectorXd::Zero(50), q;
    for (int step = 0; step < 20; ++step) {
      const Eigen::VectorXd v = gaussian(50, std::uint64_t(step)) * std::pow(10.0, step % 5 - 2);
      const Eigen::VectorXd target = e + v;  // what C sees
      const Encoded m = ef->encode(v, rng);
      const Encoded expected = inner->encode(target, inner_rng);
      CHECK(m.bits == expected.bits);
      CHECK(m.bytes == expected.bytes);
      ef->decode(m, q);
      const Eigen::VectorXd next = target - q;
      REQUIRE(bitwise_equal(ef->residual(), next));
      e = next;
    }
  }
}

TEST_CASE("error feedback: one residual per instance; a length change is a logic error") {
  auto ef = chain({{"kind", "top-k"}, {"k", 1}, {"error_feedback", true}}, {4});
  std::mt19937_64 rng(2);
  Eigen::VectorXd v(4), out;
  v << 1, 2, 3, 4;
  ef->decode(ef->encode(v, rng), out);
  CHECK(out == (Eigen::VectorXd(4) << 0, 0, 0, 4).finished());
  ef->decode(ef->encode(v, rng), out);  // residual 1,2,3,0 + v = 2,4,6,4 → keeps 6
  CHECK(out == (Eigen::VectorXd(4) << 0, 0, 6, 0).finished());
  CHECK_THROWS_AS(ef->encode(Eigen::VectorXd::Ones(3), rng), std::logic_error);
}

TEST_CASE("per-tensor: each slice encoded by its own instance; bits = sum of the slices") {
  const std::vector<Eigen::Index> sizes = {300, 20, 100, 1};
  const std::vector<json> kinds = {
      {{"kind", "top-k"}, {"ratio", 0.9}},
      {{"kind", "lpc"}, {"bits", "auto"}, {"clip", {{"kind", "std"}, {"factor", 2.0}}}},
      {{"kind", "qsgd"}, {"levels", 5}, {"coding", "elias"}},
      {{"kind", "sign"}},
      {{"kind", "random-k"}, {"ratio", 0.5}},
  };
  for (const auto& options : kinds) {
    INFO(options.dump());
    auto whole = chain(options, sizes);
    auto slice = chain(options, {1});  // a fresh single-tensor compressor per slice
    for (const auto& [name, v] : awkward_vectors(421, 3)) {
      INFO(name);
      std::mt19937_64 rng(4), slice_rng(4);
      const Encoded m = whole->encode(v, rng);
      Eigen::VectorXd out, part;
      whole->decode(m, out);
      REQUIRE(out.size() == v.size());
      std::uint64_t bits = 0;
      Eigen::Index begin = 0;
      for (const auto size : sizes) {
        auto one = chain(options, {size});
        const Encoded p = one->encode(v.segment(begin, size), slice_rng);
        bits += p.bits + (one->fixed_size() ? 0 : std::uint64_t(elias_omega_bits(p.bits + 1)));
        one->decode(p, part);
        CHECK(bitwise_equal(out.segment(begin, size), part));
        begin += size;
      }
      CHECK(m.bits == bits);
      if (whole->fixed_size()) CHECK(whole->bits_for(421) == bits);
      CHECK(rng == slice_rng);
    }
    // messages of another length (e.g. ring chunks) are compressed whole
    std::mt19937_64 a(5), b(5);
    const Eigen::VectorXd w = gaussian(77, 6);
    CHECK(whole->encode(w, a).bytes == slice->encode(w, b).bytes);
  }
  // per_tensor false: one compressor over the whole message
  auto off = chain({{"kind", "top-k"}, {"k", 10}, {"per_tensor", false}}, sizes);
  CHECK(off->bits_for(421) == 10 * (32 + 9));
}

// CHOCO-SGD adds a top-k message's kept coordinates in place of decoding it
// (Compressor::add_decoded); per tensor, each slice adds its part to its segment.
TEST_CASE("per-tensor: top-k slices add in place what decode gives, bit for bit") {
  const std::vector<Eigen::Index> sizes = {300, 20, 100, 1};
  auto own = chain({{"kind", "top-k"}, {"ratio", 0.9}}, sizes);
  const auto reader = chain({{"kind", "top-k"}, {"ratio", 0.9}}, sizes);
  REQUIRE(reader->adds_decoded());
  Eigen::VectorXd none(421);
  CHECK_FALSE(own->add_last_encoded(1.0, none));  // nothing encoded yet
  std::mt19937_64 rng(12);
  for (const auto& [name, v] : awkward_vectors(421, 7)) {
    INFO(name);
    const Encoded m = own->encode(v, rng);
    Eigen::VectorXd target = gaussian(421, 8);
    for (Eigen::Index i = 0; i < target.size(); i += 3) target(i) = 0.0;  // +0 included
    for (const double weight : {1.0, 0.37, 1e-300}) {
      Eigen::VectorXd q, dense = target, sparse = target, kept = target;
      reader->decode(m, q);
      dense += weight * q;
      reader->add_decoded(m, weight, sparse);
      CHECK(bitwise_equal(sparse, dense));
      REQUIRE(own->add_last_encoded(weight, kept));
      CHECK(bitwise_equal(kept, dense));
    }
    Eigen::VectorXd wrong(422);
    CHECK_THROWS_AS(reader->add_decoded(m, 1.0, wrong), std::invalid_argument);
    CHECK_THROWS_AS(own->add_last_encoded(1.0, wrong), std::invalid_argument);
    Encoded cut = m;
    cut.bits -= 1;
    CHECK_THROWS_AS(reader->add_decoded(cut, 1.0, target), std::invalid_argument);
  }
  // A message of another length is compressed whole, and added whole.
  const Eigen::VectorXd w = gaussian(77, 9);
  const Encoded whole = own->encode(w, rng);
  Eigen::VectorXd q, dense = Eigen::VectorXd::Zero(77), sparse = dense, kept = dense;
  reader->decode(whole, q);
  dense += 0.5 * q;
  reader->add_decoded(whole, 0.5, sparse);
  REQUIRE(own->add_last_encoded(0.5, kept));
  CHECK(bitwise_equal(sparse, dense));
  CHECK(bitwise_equal(kept, dense));
  // Kinds that decode every coordinate keep the dense decode, per tensor as well.
  const auto qsgd = chain({{"kind", "qsgd"}, {"levels", 5}}, sizes);
  CHECK_FALSE(qsgd->adds_decoded());
  Eigen::VectorXd zero = Eigen::VectorXd::Zero(421);
  CHECK_THROWS_AS(qsgd->add_decoded(qsgd->encode(zero, rng), 1.0, zero), std::logic_error);
  CHECK_FALSE(qsgd->add_last_encoded(1.0, zero));
}

TEST_CASE("factory: kinds, options and properties") {
  CHECK(chain({{"kind", "none"}}, {5})->all_reducible());
  CHECK(chain({{"kind", "fp16"}}, {5})->all_reducible());
  CHECK(chain({{"kind", "fp16"}}, {2, 3})->all_reducible());
  CHECK_FALSE(chain({{"kind", "fp16"}, {"error_feedback", true}}, {5})->all_reducible());
  CHECK_FALSE(chain({{"kind", "qsgd"}}, {5})->all_reducible());
  CHECK(chain({{"kind", "qsgd"}}, {5})->unbiased());
  CHECK(chain({{"kind", "lpc"}, {"clip", "max"}}, {5})->unbiased());
  CHECK_FALSE(
      chain({{"kind", "lpc"}, {"clip", {{"kind", "fixed"}, {"value", 1}}}}, {5})->unbiased());
  CHECK_FALSE(chain({{"kind", "terngrad"}}, {5})->unbiased());
  const auto lpc = quantizer_of({{"kind", "lpc"},
                                 {"bits", 6},
                                 {"clip", {{"kind", "adaptive"}, {"factor", 1.5}, {"decay", 0.8}}},
                                 {"bucket", 32}});
  CHECK(lpc.levels == 31);
  CHECK(lpc.clip == ClipRule::adaptive);
  CHECK(lpc.clip_value == 1.5);
  CHECK(lpc.decay == 0.8);
  CHECK(lpc.bucket == 32);
  CHECK(quantizer_of({{"kind", "lpc"}, {"clip", "std"}}).clip_value == 2.5);
  CHECK(quantizer_of({{"kind", "lpc"}, {"bits", "auto"}}).levels == 0);
  // bits exactly as docs/algorithms.md §1 for d = 1000
  CHECK(chain({{"kind", "none"}}, {1000})->bits_for(1000) == 32000);
  CHECK(chain({{"kind", "fp16"}}, {1000})->bits_for(1000) == 16000);
  CHECK(chain({{"kind", "sign"}}, {1000})->bits_for(1000) == 1032);
  CHECK(chain({{"kind", "terngrad"}}, {1000})->bits_for(1000) == 2032);
  CHECK(chain({{"kind", "qsgd"}, {"levels", 15}}, {1000})->bits_for(1000) == 32 + 1000 * 5);
  CHECK(chain({{"kind", "lpc"}, {"bits", 3}, {"bucket", 100}}, {1000})->bits_for(1000) ==
        320 + 3000);
  CHECK(chain({{"kind", "top-k"}, {"ratio", 0.99}}, {1000})->bits_for(1000) == 10 * (32 + 10));
  CHECK(chain({{"kind", "random-k"}, {"k", 7}}, {1000})->bits_for(1000) == 7 * 32 + 64);
}

TEST_CASE("factory: bad parameters name their key") {
  auto key_of = [](const json& options, std::vector<Eigen::Index> sizes = {100}) -> std::string {
    try {
      check_dimensions(parse_compressor(options), sizes);
    } catch (const CompressorConfigError& e) {
      return e.key();
    }
    return "";
  };
  CHECK(key_of({{"kind", "lpc"}, {"bits", 1}}) == "bits");
  CHECK(key_of({{"kind", "lpc"}, {"bits", 33}}) == "bits");
  CHECK(key_of({{"kind", "lpc"}, {"bits", 2.5}}) == "bits");
  CHECK(key_of({{"kind", "lpc"}, {"bits", "many"}}) == "bits");
  CHECK(key_of({{"kind", "lpc"}, {"bits", 2}}).empty());
  CHECK(key_of({{"kind", "lpc"}, {"bits", 32}}).empty());
  CHECK(key_of({{"kind", "lpc"}, {"clip", "fixed"}}) == "clip");
  CHECK(key_of({{"kind", "lpc"}, {"clip", "biggest"}}) == "clip");
  CHECK(key_of({{"kind", "lpc"}, {"clip", {{"kind", "fixed"}}}}) == "clip.value");
  CHECK(key_of({{"kind", "lpc"}, {"clip", {{"kind", "fixed"}, {"value", -1}}}}) == "clip.value");
  CHECK(key_of({{"kind", "lpc"}, {"clip", {{"kind", "std"}, {"value", 2}}}}) == "clip.value");
  CHECK(key_of({{"kind", "lpc"}, {"clip", {{"kind", "adaptive"}, {"decay", 1}}}}) == "clip.decay");
  CHECK(key_of({{"kind", "lpc"}, {"clip", 3}}) == "clip");
  CHECK(key_of({{"kind", "lpc"}, {"bucket", 0}}) == "bucket");
  CHECK(key_of({{"kind", "qsgd"}, {"levels", 0}}) == "levels");
  CHECK(key_of({{"kind", "qsgd"}, {"bucket", 0}}) == "bucket");
  CHECK(key_of({{"kind", "top-k"}}) == "ratio");
  CHECK(key_of({{"kind", "top-k"}, {"ratio", 0.5}, {"k", 2}}) == "k");
  CHECK(key_of({{"kind", "top-k"}, {"ratio", 1.0}}) == "ratio");
  CHECK(key_of({{"kind", "top-k"}, {"ratio", -0.1}}) == "ratio");
  CHECK(key_of({{"kind", "top-k"}, {"k", 0}}) == "k");
  CHECK(key_of({{"kind", "top-k"}, {"k", 101}}) == "k");
  CHECK(key_of({{"kind", "top-k"}, {"k", 100}}).empty());
  CHECK(key_of({{"kind", "random-k"}, {"k", 5}}, {50, 50}) == "k");  // per-tensor
  CHECK(key_of({{"kind", "random-k"}, {"k", 5}, {"per_tensor", false}}, {50, 50}).empty());
  CHECK(key_of({{"kind", "zip"}}) == "kind");
}

namespace {

// CHOCO-gossip on a ring of n nodes with Metropolis weights (1/3 self and each
// neighbour): q_i = C(x_i − x̂_i); x̂_i += q_i (all copies of x̂_i, as each neighbour
// decodes the same message); x_i += γ Σ_j w_ij (x̂_j − x̂_i). Returns max_i ‖x_i − x̄‖.
double choco_gossip(const json& options, int rounds, double gamma, Eigen::VectorXd* average_out,
                    bool memory = true) {
  const int n = 8;
  const Eigen::Index d = 40;
  std::vector<Eigen::VectorXd> x, hat(n, Eigen::VectorXd::Zero(d));
  std::vector<std::unique_ptr<Compressor>> c;
  std::vector<std::mt19937_64> rng;
  for (int i = 0; i < n; ++i) {
    x.push_back(gaussian(d, std::uint64_t(100 + i)) + Eigen::VectorXd::Constant(d, i));
    c.push_back(build_compressor(parse_compressor(options), {d}));
    rng.emplace_back(std::uint64_t(i));
  }
  Eigen::VectorXd average = Eigen::VectorXd::Zero(d);
  for (const auto& xi : x) average += xi / n;
  Eigen::VectorXd q;
  for (int r = 0; r < rounds; ++r) {
    for (int i = 0; i < n; ++i) {
      c[std::size_t(i)]->decode(
          c[std::size_t(i)]->encode(x[std::size_t(i)] - hat[std::size_t(i)], rng[std::size_t(i)]),
          q);
      if (memory) {
        hat[std::size_t(i)] += q;
      } else {  // naive: neighbours see C(x_i) itself
        c[std::size_t(i)]->decode(c[std::size_t(i)]->encode(x[std::size_t(i)], rng[std::size_t(i)]),
                                  q);
        hat[std::size_t(i)] = q;
      }
    }
    for (int i = 0; i < n; ++i) {
      const auto& left = hat[std::size_t((i + n - 1) % n)];
      const auto& right = hat[std::size_t((i + 1) % n)];
      x[std::size_t(i)] +=
          gamma * ((left - hat[std::size_t(i)]) + (right - hat[std::size_t(i)])) / 3.0;
    }
  }
  double worst = 0;
  for (const auto& xi : x) worst = std::max(worst, (xi - average).norm());
  if (average_out) {
    *average_out = Eigen::VectorXd::Zero(d);
    for (const auto& xi : x) *average_out += xi / n;
    *average_out -= average;
  }
  return worst;
}

}  // namespace

TEST_CASE("compressed gossip: CHOCO-gossip with top-k or qsgd reaches the true average") {
  const double start = choco_gossip({{"kind", "none"}}, 0, 0.0, nullptr);
  REQUIRE(start > 1.0);
  for (const json& options :
       {json{{"kind", "top-k"}, {"ratio", 0.75}},
        json{{"kind", "qsgd"}, {"levels", 4}, {"biased", true}}, json{{"kind", "sign"}}}) {
    INFO(options.dump());
    Eigen::VectorXd drift;
    const double error = choco_gossip(options, 1500, 0.2, &drift);
    CHECK(error < 1e-6 * start);
    CHECK(drift.norm() < 1e-9);  // symmetric weights preserve the average
  }
  // the check can fail: naive compressed gossip (x̂_i := C(x_i), no memory) stalls
  const double naive =
      choco_gossip({{"kind", "top-k"}, {"ratio", 0.75}}, 1500, 0.2, nullptr, false);
  CHECK(naive > 1e-3 * start);
}
