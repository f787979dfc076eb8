#include "models/objectives/consensus.hpp"

#include <stdexcept>

#include "models/objectives/init.hpp"

namespace dlsim::models {

Consensus::Consensus(Index dimension, int workers, std::mt19937_64& rng)
    : dimension_(dimension), average_(Vector::Zero(dimension)) {
  if (dimension < 1) throw std::invalid_argument("consensus: dimension must be >= 1");
  if (workers < 1) throw std::invalid_argument("consensus: workers must be >= 1");
  starts_.resize(std::size_t(workers));
  for (Vector& z : starts_) {
    z.resize(dimension);
    fill_normal(z, 1.0, rng);
    average_ += z;
  }
  average_ /= double(workers);
}

double Consensus::loss(const Vector& w, const Dataset&) const {
  if (w.size() != dimension_) throw std::invalid_argument("consensus: wrong model size");
  return (w - average_).squaredNorm();
}

void Consensus::gradient(const Vector& w, const Dataset&, std::span<const Index>,
                         Vector& grad) const {
  if (w.size() != dimension_) throw std::invalid_argument("consensus: wrong model size");
  grad = Vector::Zero(dimension_);
}

std::optional<double> Consensus::loss_of_models(std::span<const Vector> models) const {
  if (models.empty()) return std::nullopt;
  double sum = 0;
  for (const Vector& z : models) {
    if (z.size() != dimension_) throw std::invalid_argument("consensus: wrong model size");
    sum += (z - average_).squaredNorm();
  }
  return sum / double(models.size());
}

}  // namespace dlsim::models
