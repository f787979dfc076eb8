// Chunked metrics evaluation (Objective::data_sums, sim/metrics/evaluator.hpp): sums
// over row ranges add up to an independent per-sample whole-set computation; one pass
// gives the same loss and accuracy as data_loss()/accuracy(); the evaluator's chunked
// train loss, test loss and test accuracy match the per-sample reference (plus the
// regularizers, computed here by hand) and are bit-identical with no pool and with
// pools of 1, 2 and 3 threads, and when prepare()'s jobs run in any order, on any thread
// (their sums still added in chunk order).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <span>
#include <thread>
#include <utility>
#include <vector>

#include "models/objectives/least_squares.hpp"
#include "models/objectives/logistic.hpp"
#include "models/objectives/mlp.hpp"
#include "models/objectives/softmax.hpp"
#include "objective_helpers.hpp"
#include "sim/engine/job_pool.hpp"
#include "sim/metrics/evaluator.hpp"

using namespace dlsim;
using namespace dlsim::models;
using namespace dlsim::test;
using sim::ComputeJob;

namespace {

struct Reference {
  double loss_sum = 0;  // Σ_i −log P_{i,y_i}
  double correct = 0;   // Σ_i [argmax_c z_ic = y_i]
};

// Per-sample softmax cross-entropy and argmax, written independently of the batched code
// (layout: W is d × C column-major, then the C biases).
Reference softmax_reference(const Vector& w, const Dataset& data, int classes, bool bias) {
  const Index d = data.feature_count();
  Reference r;
  for (Index i = 0; i < data.size(); ++i) {
    std::vector<double> z(std::size_t(classes), 0.0);
    for (int c = 0; c < classes; ++c) {
      for (Index k = 0; k < d; ++k) z[std::size_t(c)] += data.features(i, k) * w(c * d + k);
      if (bias) z[std::size_t(c)] += w(d * classes + c);
    }
    double max = z[0];
    std::size_t best = 0;
    for (std::size_t c = 1; c < z.size(); ++c)
      if (z[c] > max) max = z[c], best = c;
    double norm = 0;
    for (double v : z) norm += std::exp(v - max);
    r.loss_sum += max + std::log(norm) - z[std::size_t(data.labels(i))];
    r.correct += double(best) == data.labels(i) ? 1.0 : 0.0;
  }
  return r;
}

double relative_difference(double a, double b) {
  return std::abs(a - b) / std::max(std::abs(b), 1e-300);
}

}  // namespace

TEST_CASE("softmax: chunk sums add up to a per-sample whole-set computation") {
  const int classes = 5;
  const Dataset data = classification_data(10000, 12, classes, 11);
  const Softmax f(12, classes, {.l2 = 0.1, .l1 = 0.01}, true, {});
  const Vector w = random_vector(f.dimension(), 12);
  const Reference truth = softmax_reference(w, data, classes, true);
  REQUIRE(truth.correct > 0);
  REQUIRE(truth.correct < double(data.size()));

  // Uneven chunks, not multiples of any internal block size.
  const std::vector<Index> cuts = {0, 1, 3000, 4097, 7001, 10000};
  double loss_sum = 0, correct = 0;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::optional<LossSums> part = f.data_sums(w, data, cuts[i], cuts[i + 1]);
    REQUIRE(part);
    REQUIRE(part->correct);
    loss_sum += part->loss;
    correct += *part->correct;
  }
  CHECK(relative_difference(loss_sum, truth.loss_sum) < 1e-12);
  CHECK(correct == truth.correct);

  // One pass gives both: the loss and the accuracy the whole-set calls report.
  const LossSums whole = *f.data_sums(w, data, 0, data.size());
  CHECK(whole.loss / double(data.size()) == f.data_loss(w, data));
  CHECK(*whole.correct / double(data.size()) == *f.accuracy(w, data));
  CHECK(relative_difference(f.data_loss(w, data), truth.loss_sum / double(data.size())) < 1e-12);
  CHECK(*f.accuracy(w, data) == truth.correct / double(data.size()));

  // loss() = data_loss() + regularizer(); the regularizer skips the bias.
  const Vector weights = w.head(12 * classes);
  const double regularizer = 0.5 * 0.1 * weights.squaredNorm() + 0.01 * weights.lpNorm<1>();
  CHECK(relative_difference(f.regularizer(w), regularizer) < 1e-14);
  CHECK(f.loss(w, data) == f.data_loss(w, data) + f.regularizer(w));

  // An empty range sums to zero; a range outside the data is an error.
  const LossSums none = *f.data_sums(w, data, 5, 5);
  CHECK(none.loss == 0.0);
  CHECK(*none.correct == 0.0);
  CHECK_THROWS_AS(f.data_sums(w, data, 9000, 10001), std::invalid_argument);
  CHECK_THROWS_AS(f.data_sums(w, data, 10, 9), std::invalid_argument);
}

TEST_CASE("mlp, logistic, least squares: chunk sums equal the whole-set calls") {
  const Dataset data = classification_data(9000, 6, 3, 21);
  Dataset binary = data;
  binary.labels = (data.labels.array() > 0.5).select(1.0, Eigen::ArrayXd::Constant(9000, -1.0));
  const Mlp mlp(6, {7}, 3, Activation::tanh, {.l2 = 0.05, .l1 = 0}, true, {});
  const Logistic logistic(6, {.l2 = 0.05, .l1 = 0.02}, true, {});
  const LeastSquares least_squares(6, {.l2 = 0.05, .l1 = 0.02}, true, {});
  struct Case {
    const Objective* f;
    const Dataset* data;
  };
  for (const Case c : {Case{&mlp, &data}, Case{&logistic, &binary}, Case{&least_squares, &data}}) {
    const Vector w = random_vector(c.f->dimension(), 22, 0.5);
    const Index n = c.data->size();
    double loss_sum = 0, correct = 0;
    for (Index r0 = 0; r0 < n; r0 += 2500) {
      const LossSums part = *c.f->data_sums(w, *c.data, r0, std::min(r0 + 2500, n));
      loss_sum += part.loss;
      if (part.correct) correct += *part.correct;
    }
    CHECK(relative_difference(loss_sum / double(n), c.f->data_loss(w, *c.data)) < 1e-12);
    if (const auto accuracy = c.f->accuracy(w, *c.data))
      CHECK(correct / double(n) == *accuracy);
    else
      CHECK_FALSE(c.f->data_sums(w, *c.data, 0, n)->correct);
    CHECK(c.f->loss(w, *c.data) == c.f->data_loss(w, *c.data) + c.f->regularizer(w));
  }
}

TEST_CASE("evaluator: chunked metrics match the reference for every pool size") {
  const int classes = 4;
  const Dataset train = classification_data(3 * sim::kEvaluationChunkRows + 123, 8, classes, 31);
  const Dataset test = classification_data(sim::kEvaluationChunkRows + 7, 8, classes, 32);
  const Softmax f(8, classes, {.l2 = 0.2, .l1 = 0}, false, {});
  const std::vector<Vector> models = {random_vector(f.dimension(), 33),
                                      random_vector(f.dimension(), 34)};
  const Vector mean = (models[0] + models[1]) / 2.0;

  sim::Evaluator evaluator(f, &train, &test, true);
  const sim::Evaluation inline_run = evaluator.evaluate(models);
  REQUIRE(inline_run.train_loss);
  REQUIRE(inline_run.test_loss);
  REQUIRE(inline_run.test_accuracy);

  const Reference on_train = softmax_reference(mean, train, classes, false);
  const Reference on_test = softmax_reference(mean, test, classes, false);
  const double regularizer = 0.5 * 0.2 * mean.squaredNorm();
  CHECK(relative_difference(*inline_run.train_loss,
                            on_train.loss_sum / double(train.size()) + regularizer) < 1e-12);
  CHECK(relative_difference(*inline_run.test_loss, on_test.loss_sum / double(test.size())) < 1e-12);
  CHECK(*inline_run.test_accuracy == on_test.correct / double(test.size()));
  CHECK(*inline_run.test_accuracy == *f.accuracy(mean, test));
  CHECK(relative_difference(*inline_run.test_loss, f.data_loss(mean, test)) < 1e-12);
  CHECK(relative_difference(*inline_run.consensus_distance, (models[0] - mean).squaredNorm()) <
        1e-12);

  for (const int threads : {1, 2, 3}) {
    INFO("threads " << threads);
    sim::JobPool pool(threads);
    evaluator.set_pool(&pool);
    for (int repeat = 0; repeat < 3; ++repeat) {
      const sim::Evaluation e = evaluator.evaluate(models);
      CHECK(*e.train_loss == *inline_run.train_loss);  // bit-identical
      CHECK(*e.test_loss == *inline_run.test_loss);
      CHECK(*e.test_accuracy == *inline_run.test_accuracy);
    }
  }
}

namespace {

// An objective without data_sums (as a CNN): the evaluator makes three whole passes. It
// forwards everything else to `f`.
class WholePasses final : public Objective {
 public:
  explicit WholePasses(const Objective& f) : f_(f) {}
  Index dimension() const override { return f_.dimension(); }
  double loss(const Vector& w, const Dataset& data) const override { return f_.loss(w, data); }
  double data_loss(const Vector& w, const Dataset& data) const override {
    return f_.data_loss(w, data);
  }
  void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                Vector& grad) const override {
    f_.gradient(w, data, rows, grad);
  }
  ComputeCost gradient_cost(Index batch) const override { return f_.gradient_cost(batch); }
  void prox(Vector& w, double step) const override { f_.prox(w, step); }
  std::optional<double> accuracy(const Vector& w, const Dataset& data) const override {
    return f_.accuracy(w, data);
  }
  Vector initial_point(std::mt19937_64& rng) const override { return f_.initial_point(rng); }

 private:
  const Objective& f_;
};

void require_identical(const sim::Evaluation& a, const sim::Evaluation& b) {
  REQUIRE(a.train_loss);
  REQUIRE(a.test_loss);
  REQUIRE(a.test_accuracy);
  CHECK(a.train_loss == b.train_loss);  // bit-identical
  CHECK(a.test_loss == b.test_loss);
  CHECK(a.test_accuracy == b.test_accuracy);
  CHECK(a.consensus_distance == b.consensus_distance);
}

}  // namespace

TEST_CASE("evaluator: prepare()'s jobs, run in any order on any thread, give evaluate()'s") {
  // What a metrics row evaluated beside the simulation does (sim/metrics/recorder.hpp):
  // the jobs run in reverse order, split between two threads, or posted beside a pool's
  // phases; the models may change once prepare() returns.
  const int classes = 4;
  const Dataset train = classification_data(3 * sim::kEvaluationChunkRows + 123, 8, classes, 41);
  const Dataset test = classification_data(sim::kEvaluationChunkRows + 7, 8, classes, 42);
  const Softmax softmax(8, classes, {.l2 = 0.2, .l1 = 0}, false, {});
  const WholePasses whole(softmax);
  const std::vector<Vector> models = {random_vector(softmax.dimension(), 43),
                                      random_vector(softmax.dimension(), 44),
                                      random_vector(softmax.dimension(), 45)};
  for (const auto& [f, jobs] : {std::pair<const Objective*, std::size_t>{&softmax, 4 + 2},
                                std::pair<const Objective*, std::size_t>{&whole, 3}}) {
    INFO((f == &softmax ? "chunks" : "whole passes"));
    sim::Evaluator evaluator(*f, &train, &test, true);
    const sim::Evaluation inline_run = evaluator.evaluate(models);

    std::vector<Vector> changing = models;
    const auto passes = evaluator.prepare(changing);
    for (Vector& x : changing) x.setZero();
    REQUIRE(passes->jobs().size() == jobs);
    const std::vector<ComputeJob*> reversed(passes->jobs().rbegin(), passes->jobs().rend());
    std::thread other([&] {
      for (std::size_t i = 1; i < reversed.size(); i += 2) reversed[i]->run();
    });
    for (std::size_t i = 0; i < reversed.size(); i += 2) reversed[i]->run();
    other.join();
    require_identical(passes->result(), inline_run);

    sim::JobPool pool(2);
    const auto beside = evaluator.prepare(models);
    pool.post_beside(beside->jobs());
    pool.wait_beside();
    require_identical(beside->result(), inline_run);
  }
}

TEST_CASE("evaluator: the chunks' sums add up in chunk order, whatever order the jobs ran in") {
  // result() must add the chunks' sums in chunk order, not in the order the jobs finished
  // (which depends on the threads): the jobs run here in reverse order on one thread, on
  // data whose four training chunks give a different sum added in reverse.
  const int classes = 4;
  const Dataset train = classification_data(3 * sim::kEvaluationChunkRows + 123, 8, classes, 41);
  const Softmax softmax(8, classes, {.l2 = 0.2, .l1 = 0}, false, {});
  const double n = double(train.size());
  Vector x;
  double forward = 0, reverse = 0;  // the train losses from the two orders
  for (std::uint64_t seed = 50; seed < 150 && forward == reverse; ++seed) {
    x = random_vector(softmax.dimension(), seed);
    std::vector<double> chunk;
    for (Index r0 = 0; r0 < train.size(); r0 += sim::kEvaluationChunkRows)
      chunk.push_back(
          softmax.data_sums(x, train, r0, std::min(r0 + sim::kEvaluationChunkRows, train.size()))
              ->loss);
    REQUIRE(chunk.size() == 4);
    forward = (((chunk[0] + chunk[1]) + chunk[2]) + chunk[3]) / n + softmax.regularizer(x);
    reverse = (((chunk[3] + chunk[2]) + chunk[1]) + chunk[0]) / n + softmax.regularizer(x);
  }
  REQUIRE(forward != reverse);  // the order shows in the last bit for this model

  sim::Evaluator evaluator(softmax, &train, nullptr, true);
  const std::vector<Vector> one = {x};  // the mean of one model is that model, bit for bit
  const auto passes = evaluator.prepare(one);
  REQUIRE(passes->jobs().size() == 4);
  for (auto job = passes->jobs().rbegin(); job != passes->jobs().rend(); ++job) (*job)->run();
  const sim::Evaluation e = passes->result();
  REQUIRE(e.train_loss);
  CHECK(*e.train_loss == forward);
  CHECK(*e.train_loss == evaluator.evaluate(one).train_loss);
}
