// Initial models (docs/design.md §4 `model.init`): zeros; N(0, std²); He, N(0, 2/fan_in)
// (He et al., "Delving Deep into Rectifiers", ICCV 2015), for relu layers; Xavier/Glorot
// normal, N(0, 2/(fan_in + fan_out)) (Glorot & Bengio, AISTATS 2010), for tanh layers;
// torch, PyTorch's default for nn.Linear and nn.Conv2d: weights and biases both
// U(−1/√fan_in, 1/√fan_in) (kaiming_uniform_ with a = √5 gives that bound, and
// reset_parameters draws the bias on the same bound), so runs can start as PyTorch code does.
// Biases start at 0 for he and xavier. Every draw comes from the run's seed.
#pragma once

#include <cmath>
#include <random>
#include <stdexcept>

#include "models/data/dataset.hpp"
#include "rng/distributions.hpp"

namespace dlsim::models {

struct InitOptions {
  enum class Kind { zeros, normal, he, xavier, torch } kind = Kind::zeros;
  double std = 0.01;  // for normal
};

/// Fills `v` with independent N(0, std²) draws (in index order); zeros when std is 0.
template <class Out>
void fill_normal(Out&& v, double std, std::mt19937_64& rng) {
  if (std == 0) {
    v.setZero();
    return;
  }
  rng::Normal normal(0.0, std);
  for (Index k = 0; k < v.size(); ++k) v(k) = normal(rng);
}

/// Fills `v` with independent U(−bound, bound) draws (in index order).
template <class Out>
void fill_uniform(Out&& v, double bound, std::mt19937_64& rng) {
  rng::UniformReal uniform(-bound, bound);
  for (Index k = 0; k < v.size(); ++k) v(k) = uniform(rng);
}

/// PyTorch's default bound for a layer's weights and biases: 1/√fan_in.
inline double torch_bound(Index fan_in) {
  return 1.0 / std::sqrt(double(fan_in));
}

/// Standard deviation of a weight matrix fan_in × fan_out under `init`.
inline double init_std(const InitOptions& init, Index fan_in, Index fan_out) {
  switch (init.kind) {
    case InitOptions::Kind::zeros:
      return 0.0;
    case InitOptions::Kind::normal:
      return init.std;
    case InitOptions::Kind::he:
      return std::sqrt(2.0 / double(fan_in));
    case InitOptions::Kind::xavier:
      return std::sqrt(2.0 / double(fan_in + fan_out));
    case InitOptions::Kind::torch:
      return torch_bound(fan_in) / std::sqrt(3.0);  // the standard deviation of U(−b, b)
  }
  return 0.0;
}

inline void check_init(const InitOptions& init, const char* who) {
  if (init.kind == InitOptions::Kind::normal && !(init.std >= 0))
    throw std::invalid_argument(std::string(who) + ": init std must be >= 0");
}

}  // namespace dlsim::models
