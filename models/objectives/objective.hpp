// What a worker computes, with no knowledge of time or network (docs/design.md §8).
// An objective is a loss over a data set plus regularizers; gradients are exact and
// each batch gradient reports its cost, which the simulator turns into time.
//
// Two faces of one contract (ensmallen-style):
//  - `ObjectiveFunction` (a C++20 concept, below) states what every objective type
//    provides; each concrete objective's header checks itself with
//    `static_assert(check_objective<T>())`, whose messages name the missing member.
//  - `Objective` (the virtual base) is the type-erased holder the simulator stores: the
//    model kind is chosen at run time from the scenario, and one virtual call per batch
//    gradient is negligible next to the batch's matrix products.
//
// FLOP convention of gradient_cost (exact counts of the arithmetic the code performs):
// a multiply-add in a matrix product counts 2, every other elementwise add, multiply,
// divide, max, exp, log or tanh counts 1.
#pragma once

#include <concepts>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// The cost of one piece of work: FLOPs (turned into time by the compute speed) plus
/// a fixed duration in seconds (for `profile` models that state their time directly).
struct ComputeCost {
  double flops = 0.0;
  double seconds = 0.0;
};

/// Sums over a range of rows, from one pass (Objective::data_sums): the data loss
/// Σ_i ℓ_i (data_loss() = loss / rows) and, for classifiers, the number of correct
/// predictions Σ_i [predicted_i = y_i] (accuracy() = *correct / rows).
struct LossSums {
  double loss = 0.0;
  std::optional<double> correct;
};

class Objective {
 public:
  virtual ~Objective() = default;

  /// Length of the parameter vector the math uses (0 for models without math).
  virtual Index dimension() const = 0;
  /// Number of parameters a message carries (= dimension() for models with math).
  virtual Index parameters() const { return dimension(); }
  /// False for `profile`: no vectors, only costs and message sizes.
  virtual bool has_math() const { return true; }
  /// Sizes of the tensors (layers: weights, then bias) laid out one after another in the
  /// parameter vector; they sum to parameters(). Per-tensor compression encodes each
  /// slice separately. Models without layers are one tensor.
  virtual std::vector<Index> tensor_sizes() const { return {parameters()}; }

  /// Full objective on `data`: mean loss + regularizers (l2, l1; bias excluded).
  virtual double loss(const Vector& w, const Dataset& data) const = 0;
  /// Mean loss on `data` without regularizers (what test_loss reports).
  virtual double data_loss(const Vector& w, const Dataset& data) const = 0;
  /// Gradient of the smooth part (mean loss over `rows` of `data` + l2 term) into `grad`.
  virtual void gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                        Vector& grad) const = 0;
  /// Cost of one gradient on a batch of `batch` rows.
  virtual ComputeCost gradient_cost(Index batch) const = 0;
  /// prox of step·(nonsmooth part): soft-thresholding for l1; identity otherwise.
  virtual void prox(Vector& w, double step) const = 0;
  /// Fraction of correct predictions, for classifiers; nullopt otherwise.
  virtual std::optional<double> accuracy(const Vector& w, const Dataset& data) const = 0;
  /// Data-loss sum and correct count over rows [begin, end) of `data` in one pass, so
  /// an evaluation can split a data set into chunks and add the chunks' sums; nullopt
  /// (the default): not supported, callers use loss()/data_loss()/accuracy().
  virtual std::optional<LossSums> data_sums(const Vector& /*w*/, const Dataset& /*data*/,
                                            Index /*begin*/, Index /*end*/) const {
    return std::nullopt;
  }
  /// The regularizers at `w` (l2, l1; bias excluded): loss() = data_loss() +
  /// regularizer() for objectives that implement data_sums.
  virtual double regularizer(const Vector& /*w*/) const { return 0.0; }
  /// The starting point every worker shares (zeros, or drawn from `rng`).
  virtual Vector initial_point(std::mt19937_64& rng) const = 0;

  /// Per-worker starting points, for objectives where every worker starts elsewhere
  /// (`consensus`); empty (the default): every worker starts from initial_point().
  virtual std::span<const Vector> worker_starts() const { return {}; }
  /// A loss that depends on every holder's model rather than on their average
  /// (`consensus`: (1/n) Σ_i ||x_i − x̄⁰||²); nullopt (the default): the evaluator
  /// uses loss() of the averaged model on the training set.
  virtual std::optional<double> loss_of_models(std::span<const Vector> /*models*/) const {
    return std::nullopt;
  }
};

/// An objective whose loss, data_loss and accuracy all follow from data_sums over every
/// row plus regularizer(): it implements those two and inherits the rest, so the whole-set
/// and the chunked evaluations share one code path.
class SummedObjective : public Objective {
 public:
  double loss(const Vector& w, const Dataset& data) const override {
    return data_loss(w, data) + regularizer(w);
  }
  double data_loss(const Vector& w, const Dataset& data) const override {
    return all_rows(w, data).loss / double(data.size());
  }
  std::optional<double> accuracy(const Vector& w, const Dataset& data) const override {
    const LossSums sums = all_rows(w, data);
    if (!sums.correct) return std::nullopt;
    return *sums.correct / double(data.size());
  }
  std::optional<LossSums> data_sums(const Vector& w, const Dataset& data, Index begin,
                                    Index end) const override = 0;

 private:
  LossSums all_rows(const Vector& w, const Dataset& data) const {
    return *data_sums(w, data, 0, data.size());
  }
};

struct Regularization {
  double l2 = 0.0;
  double l1 = 0.0;
};

// ------------------------------------------------------------------ the concept
template <class T>
concept HasDimension = requires(const T& f) {
  { f.dimension() } -> std::convertible_to<Index>;
};
template <class T>
concept HasLoss = requires(const T& f, const Vector& w, const Dataset& data) {
  { f.loss(w, data) } -> std::convertible_to<double>;
  { f.data_loss(w, data) } -> std::convertible_to<double>;
};
template <class T>
concept HasBatchGradient = requires(const T& f, const Vector& w, const Dataset& data,
                                    std::span<const Index> rows, Vector& grad) {
  f.gradient(w, data, rows, grad);
};
template <class T>
concept HasGradientCost = requires(const T& f, Index batch) {
  { f.gradient_cost(batch) } -> std::convertible_to<ComputeCost>;
};
template <class T>
concept HasProx = requires(const T& f, Vector& w, double step) {
  f.prox(w, step);
};
template <class T>
concept HasInitialPoint = requires(const T& f, std::mt19937_64& rng) {
  { f.initial_point(rng) } -> std::convertible_to<Vector>;
};

/// Loss and gradient on a batch (row indices into a data set), full loss on a data
/// set, dimension, FLOPs of one batch gradient, prox of the nonsmooth part, start point.
template <class T>
concept ObjectiveFunction = HasDimension<T> && HasLoss<T> && HasBatchGradient<T> &&
    HasGradientCost<T> && HasProx<T> && HasInitialPoint<T>;

/// static_assert(check_objective<T>()) fails with a message naming what T lacks.
template <class T>
consteval bool check_objective() {
  static_assert(HasDimension<T>, "objective needs `Index dimension() const`");
  static_assert(
      HasLoss<T>,
      "objective needs `double loss(w, data) const` and `double data_loss(w, data) const`");
  static_assert(
      HasBatchGradient<T>,
      "objective needs `void gradient(w, data, std::span<const Index> rows, grad) const`");
  static_assert(HasGradientCost<T>,
                "objective needs `ComputeCost gradient_cost(Index batch) const`");
  static_assert(HasProx<T>, "objective needs `void prox(Vector& w, double step) const`");
  static_assert(HasInitialPoint<T>, "objective needs `Vector initial_point(rng) const`");
  return ObjectiveFunction<T>;
}

}  // namespace dlsim::models
