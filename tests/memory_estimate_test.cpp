// The memory estimate (sim/run/memory_estimate.hpp) on hand-computed cases, the guard's
// refusal (sim/run/memory_guard.hpp), the saturating parameter counts, the libsvm source
// asking before it densifies, and the CNN scratch probe's linearity in the batch.
#include <catch2/catch.hpp>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>

#include "models/cpu/instruction_set.hpp"
#include "models/data/registry.hpp"
#include "models/objectives/cnn/architectures.hpp"
#include "models/objectives/cnn/conv_net.hpp"
#include "models/objectives/cnn/network.hpp"
#include "models/objectives/dense_classifier.hpp"
#include "run_helpers.hpp"
#include "sim/algorithms/centralized.hpp"
#include "sim/run/memory_guard.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/scenario/load.hpp"

using nlohmann::json;
namespace sim = dlsim::sim;
namespace models = dlsim::models;

namespace {

double piece(const sim::MemoryEstimate& e, const std::string& name) {
  for (const auto& p : e.pieces)
    if (p.name == name) return p.bytes;
  FAIL("no piece " << name);
  return 0;
}

json gossip_scenario(int workers) {
  return {{"workers", workers},
          {"model", {{"kind", "consensus"}, {"dimension", 1000}}},
          {"algorithm", {{"kind", "choco-gossip"}}},
          {"topology", {{"kind", "ring"}}},
          {"stop", {{"iterations", 3}}}};
}

}  // namespace

// CHOCO-gossip of d = 1000 on a ring of 4, one thread, compressor none (fp32, 32 bits a
// coordinate), metrics inline:
//   vectors: 4 workers x 3 (choco-gossip) + 4 copies x 2 (x_hat, s) + recorder 4 x 2 + 1 = 29
//   model state: 8 * 1000 * 29 + 8 payload buffers x 4000 B + 4 starts x 1000 x 8 = 296,000
//   engine: 4 nodes x 200 (no jitter) + 4 processes x 6,900 + 8 arcs x 280 = 30,640
//   peak: 7,900,000 + 296,000 + 30,640 = 8,226,640.
// Metrics in the background (the default): the row in evaluation keeps its
// 4 models, 4 x 8,000 more.
TEST_CASE("memory estimate: choco-gossip on a ring, by hand") {
  const sim::PreparedRun p =
      sim::prepare(sim::load_scenario(gossip_scenario(4)), {.inline_metrics = true});
  CHECK(piece(p.memory, "model state") == Approx(296000));
  CHECK(piece(p.memory, "engine") == Approx(30640));
  CHECK(piece(p.memory, "data") == 0);
  CHECK(piece(p.memory, "loading") == 0);
  CHECK(piece(p.memory, "thread scratch") == 0);
  CHECK(p.memory.bytes == Approx(8226640));
  const sim::PreparedRun beside = sim::prepare(sim::load_scenario(gossip_scenario(4)));
  CHECK(piece(beside.memory, "model state") == Approx(296000 + 4 * 8000));
  json targeted = gossip_scenario(4);  // a target loss keeps the evaluation inline
  targeted["stop"]["target_loss"] = 0.0;
  CHECK(piece(sim::prepare(sim::load_scenario(targeted)).memory, "model state") == Approx(296000));
}

// The same with top-k (k = 100): the decoded message is never filled (top-k adds messages in
// place), the compressor keeps one scratch vector (its keys, then the kept indices) and its
// last message's 100 fp32 values (100 x 4 B = 0.05 vector), and a message is 100 x (32 + 10)
// bits:
//   vectors: 4 x (3 - 1 + 1.05) + 4 x 2 + 4 x 2 + 1 = 29.2; 8 * 1000 * 29.2 + 8 x 525 B +
//   32,000 = 269,800. On a time-varying graph the decoded message is kept (one vector per
//   worker).
TEST_CASE("memory estimate: choco-gossip with top-k keeps no decoded message, by hand") {
  json doc = gossip_scenario(4);
  doc["algorithm"]["compressor"] = {{"kind", "top-k"}, {"k", 100}};
  const sim::PreparedRun p = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  CHECK(piece(p.memory, "model state") == Approx(269800));
  doc["topology"] = {{"kind", "random-matching"}};
  const sim::PreparedRun matching = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  CHECK(piece(matching.memory, "model state") > piece(p.memory, "model state") + 4 * 8000 - 1);
}

// Least squares on 1,000 generated rows of 20 features, a fifth split off as the test
// set, eval_samples 100, 2 workers over a parameter server:
//   data: (800 + 200 + 100) rows x 21 x 8 + 800 shard indices x 8 = 191,200
//   loading: the 1,000 rows plus the 1,000 the split copies: 2,000 x 21 x 8 = 336,000
//   thread scratch: a gathered batch of 10 rows (20 features, its label, one spare) x 8
//   = 10 x 22 x 8 = 1,760.
TEST_CASE("memory estimate: data, the loading copies and the thread scratch, by hand") {
  const json doc = {{"workers", 2},
                    {"data",
                     {{"source", "synthetic-regression"},
                      {"samples", 1000},
                      {"features", 20},
                      {"test_fraction", 0.2}}},
                    {"model", {{"kind", "least-squares"}}},
                    {"algorithm", {{"kind", "sgd"}, {"batch_size", 10}}},
                    {"stop", {{"iterations", 2}}},
                    {"metrics", {{"eval_samples", 100}}}};
  const sim::PreparedRun p = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  CHECK(piece(p.memory, "data") == Approx(191200));
  CHECK(piece(p.memory, "loading") == Approx(336000));
  CHECK(piece(p.memory, "thread scratch") == Approx(1760));
  // Two threads keep two scratches; the metrics thread beside one thread takes over its
  // evaluation's, which counts as one.
  const sim::PreparedRun two = sim::prepare(sim::load_scenario(doc), {.threads = 2});
  CHECK(piece(two.memory, "thread scratch") == Approx(3520));
  const sim::PreparedRun beside = sim::prepare(sim::load_scenario(doc));
  CHECK(piece(beside.memory, "thread scratch") == Approx(1760));
}

// The same with data.storage float32: 4 bytes a feature, the label still 8:
//   data: 1,100 rows x (20 x 4 + 8) + 800 shard indices x 8 = 103,200
//   loading: unchanged, 336,000 (the floats are made in place, in the doubles' memory)
//   thread scratch: 1,760 + the evaluation's converted block, 500 rows x 20 x 8 = 81,760.
// Without the split and the eval subsample: 1,000 x 88 + 8,000 = 96,000 and 168,000.
TEST_CASE("memory estimate: float32 storage, by hand") {
  json doc = {{"workers", 2},
              {"data",
               {{"source", "synthetic-regression"},
                {"samples", 1000},
                {"features", 20},
                {"test_fraction", 0.2},
                {"storage", "float32"}}},
              {"model", {{"kind", "least-squares"}}},
              {"algorithm", {{"kind", "sgd"}, {"batch_size", 10}}},
              {"stop", {{"iterations", 2}}},
              {"metrics", {{"eval_samples", 100}}}};
  const sim::PreparedRun p = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  CHECK(p.data->train.features.is_float32());
  CHECK(piece(p.memory, "data") == Approx(103200));
  CHECK(piece(p.memory, "loading") == Approx(336000));
  CHECK(piece(p.memory, "thread scratch") == Approx(81760));
  doc["data"].erase("test_fraction");
  doc["metrics"].erase("eval_samples");
  const sim::PreparedRun whole = sim::prepare(sim::load_scenario(doc));
  CHECK(piece(whole.memory, "data") == Approx(96000));
  CHECK(piece(whole.memory, "loading") == Approx(168000));
}

TEST_CASE("memory estimate: ring all-reduce's shortcut counts one worker process") {
  json doc = {{"workers", 64},
              {"model", {{"kind", "profile"}, {"parameters", 6400}}},
              {"algorithm", {{"kind", "sgd"}, {"collective", "ring-allreduce"}}},
              {"stop", {{"iterations", 2}}}};
  const sim::PreparedRun fast = sim::prepare(sim::load_scenario(doc));
  // 64 nodes x 200 + 1 process x 1,600 (a model without values: no stream compressor,
  // no random stream), no message in flight.
  CHECK(piece(fast.memory, "engine") == Approx(64 * 200.0 + 1600));
  doc["compute"] = {{"jitter", 0.1}};  // workers drift: every one is simulated, and each
                                       // node keeps a 2,504-byte jitter stream
  const sim::PreparedRun full = sim::prepare(sim::load_scenario(doc));
  CHECK(piece(full.memory, "engine") == Approx(64 * (2704.0 + 1600) + 64 * 280.0));
}

TEST_CASE("memory guard: a run above the limit is refused at the largest part's key") {
  const auto scenario = sim::load_scenario(gossip_scenario(4));
  try {
    sim::prepare(scenario, {.inline_metrics = true, .memory_limit = 1e6});
    FAIL("not refused");
  } catch (const sim::InputError& e) {
    // Refused by the first check, from the scenario alone: the case above without the
    // consensus starts (known once the model is built), 8,223,040 - 32,000 bytes.
    CHECK(e.where() == "workers");
    CHECK_THAT(e.problem(), Catch::Contains("the run needs about 8.19 MB (estimate; largest "
                                            "part: model state 264 kB = 29 model-sized vectors"));
    CHECK_THAT(e.problem(), Catch::Contains("more than the 1 MB available (--memory-limit)"));
  }
  CHECK_NOTHROW(sim::prepare(scenario, {.inline_metrics = true, .memory_limit = 8.25e6}));
  // The limit given replaces the machine's; without one, the machine's is at most
  // MemAvailable.
  CHECK(sim::memory_limit(123.0)->bytes == 123.0);
  CHECK(sim::memory_limit(123.0)->source == "--memory-limit");
  const auto machine = sim::memory_limit(std::nullopt);
  REQUIRE(machine);
  CHECK(machine->bytes > 0);
}

TEST_CASE("memory guard: sizes that overflow are refused before anything is allocated") {
  constexpr std::int64_t big = std::int64_t(1) << 40;
  constexpr auto saturated = std::numeric_limits<std::int64_t>::max();
  CHECK(models::DenseClassifier::parameter_count(big, {}, big, true) == saturated);
  CHECK(models::DenseClassifier::parameter_count(784, {128}, 10, true) == 101770);
  // softmax with 10^5 features and 10^5 classes: 10^10 weights, refused when loaded,
  // before the 100 generated rows exist.
  const json softmax = {{"workers", 2},
                        {"data",
                         {{"source", "synthetic-classification"},
                          {"samples", 100},
                          {"features", 100000},
                          {"classes", 100000}}},
                        {"model", {{"kind", "softmax"}}},
                        {"stop", {{"iterations", 2}}}};
  CHECK_THROWS_AS(sim::prepare(sim::load_scenario(softmax), {.memory_limit = 1e11}),
                  sim::InputError);
  const auto early = sim::load_scenario(softmax);
  CHECK_THROWS_AS(sim::check_scenario_memory(early, {.memory_limit = 1e11}), sim::InputError);
}

TEST_CASE("memory guard: libsvm shows the dense shape before storing it") {
  const auto path = dlsim::test::fresh_dir("memory-libsvm") / "wide.svm";
  std::ofstream(path) << "1 2147483648:1\n-1 3:2\n";
  const json doc = {{"workers", 1},
                    {"data", {{"source", "libsvm"}, {"path", path.string()}}},
                    {"model", {{"kind", "least-squares"}}}};
  const auto scenario = sim::load_scenario(doc);
  std::optional<models::DataShape> seen;
  struct Refused {};
  std::mt19937_64 rng(1);
  CHECK_THROWS_AS(scenario.data.options->load(rng,
                                              [&](const models::DataShape& shape) {
                                                seen = shape;
                                                throw Refused{};  // nothing stored yet
                                              }),
                  Refused);
  REQUIRE(seen);
  CHECK(seen->features == std::int64_t(1) << 31);
  CHECK(seen->samples == 2);
  CHECK(seen->test_samples == 0);
  // prepare() refuses it at the file's key.
  try {
    sim::prepare(scenario, {.memory_limit = 1e9});
    FAIL("not refused");
  } catch (const sim::InputError& e) {
    CHECK(e.where() == "data.path");
  }
}

// The probe measures one sample's scratch; every buffer is linear in the rows.
TEST_CASE("memory estimate: a CNN's scratch is linear in the batch") {
  models::cnn::Architecture a;  // lenet5
  const auto net = models::cnn::build_network<float>(a);
  const Eigen::VectorXf params = Eigen::VectorXf::Zero(net.parameter_count());
  Eigen::VectorXf grad(net.parameter_count());
  auto scratch_after = [&](models::Index rows) {
    models::cnn::NetworkScratch<float> s;
    const std::vector<int> labels(std::size_t(rows), 0);
    net.gradient(params.data(), models::Matrix::Zero(rows, 784), labels, grad.data(), s);
    return models::cnn::scratch_values(s);
  };
  auto forward_scratch_after = [&](models::Index rows) {
    models::cnn::NetworkScratch<float> s;
    net.forward(params.data(), models::Matrix::Zero(rows, 784), s);
    return models::cnn::scratch_values(s);
  };
  const models::Index one = scratch_after(1);
  CHECK(one > 784);
  CHECK(scratch_after(7) == 7 * one);
  const models::Index forward_one = forward_scratch_after(1);
  CHECK(forward_one > 784);
  CHECK(forward_one < one);  // no backward buffers
  CHECK(forward_scratch_after(7) == 7 * forward_one);
  // thread_bytes: 4 bytes per value for a batch of 32 gradients and a forward pass over 500
  // rows (an evaluation block), the parameters and the gradient in float, and a gathered
  // batch of 32 doubles rows.
  const double expected = 4.0 * (32.0 * double(one) + 500.0 * double(forward_one) +
                                 2.0 * double(net.parameter_count())) +
                          8.0 * 32 * 784;
  CHECK(models::ConvNet::thread_bytes(a, models::Precision::single, 32) == Approx(expected));
}

// Fashion-MNIST is kept as byte codes. A dense classifier widens them four rows at a time
// inside its AVX-512 product (dense_product::RowSource), else a whole evaluation block of
// 1,024 rows; the thread scratch counts what the processor running the estimate does:
//   softmax, batch 16: thread_bytes(784, {}, 10, 16) + 8 x 784 x (4 or 1,024).
// A least-squares model (no such product) keeps the block of 1,024 rows.
TEST_CASE("memory estimate: byte-coded features in a dense classifier's product, by hand") {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/train-images-idx3-ubyte.gz")) {
    WARN("dataset-fashion-mnist is not installed; skipping");
    return;
  }
  const bool avx512 = models::avx512_available();
  CHECK(models::DenseClassifier::coded_rows_widened() == (avx512 ? 4 : 1024));
  json doc = {{"workers", 2},
              {"data", {{"source", "fashion-mnist"}}},
              {"model", {{"kind", "softmax"}}},
              {"algorithm", {{"kind", "sgd"}, {"batch_size", 16}}},
              {"stop", {{"iterations", 2}}}};
  const sim::PreparedRun p = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  REQUIRE(p.data->train.features.is_coded());
  const double widened = 8.0 * 784 * (avx512 ? 4 : 1024);
  CHECK(piece(p.memory, "thread scratch") ==
        Approx(models::DenseClassifier::thread_bytes(784, {}, 10, 16) + widened));
  doc["model"] = {{"kind", "least-squares"}};
  const sim::PreparedRun ls = sim::prepare(sim::load_scenario(doc), {.inline_metrics = true});
  CHECK(piece(ls.memory, "thread scratch") == Approx(8.0 * 16 * (784 + 2) + 8.0 * 784 * 1024));
}
