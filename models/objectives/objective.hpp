// What a worker computes, with no knowledge of time or network (DESIGN.md §8).
// An objective is a loss over a data set plus regularizers; gradients are exact and
// each batch gradient reports its cost, which the simulator turns into time.
#pragma once

#include <optional>
#include <random>
#include <span>

#include "models/data/dataset.hpp"

namespace dlsim::models {

/// The cost of one piece of work: FLOPs (turned into time by the compute speed) plus
/// a fixed duration in seconds (for `profile` models that state their time directly).
struct ComputeCost {
  double flops = 0.0;
  double seconds = 0.0;
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
  /// The starting point every worker shares (zeros, or drawn from `rng`).
  virtual Vector initial_point(std::mt19937_64& rng) const = 0;
};

struct Regularization {
  double l2 = 0.0;
  double l1 = 0.0;
};

}  // namespace dlsim::models
