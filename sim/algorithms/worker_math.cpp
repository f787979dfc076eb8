#include "sim/algorithms/worker_math.hpp"

#include <stdexcept>

namespace dlsim::sim {

std::unique_ptr<models::Compressor> make_compressor(const CompressorSpec& spec) {
  if (spec.kind == "none" && !spec.error_feedback)
    return std::make_unique<models::Fp32Compressor>();
  throw std::logic_error("compressor not available: " + spec.kind);
}

WorkerMath::WorkerMath(Training& training, int id)
    : t_(training),
      compressor_(make_compressor(training.scenario.algorithm.compressor)),
      rng_(make_rng(training.scenario.seed, "compress", std::uint64_t(id))) {
  if (training.objective.has_math() && id < training.workers())
    sampler_ = std::make_unique<models::BatchSampler>(
        training.shards[id], training.scenario.algorithm.batch_size,
        make_rng(training.scenario.seed, "batches", std::uint64_t(id)));
}

models::ComputeCost WorkerMath::gradient(const models::Vector& x, models::Vector& g) {
  const auto batch = t_.scenario.algorithm.batch_size;
  if (!sampler_) return t_.objective.gradient_cost(batch);
  ScopedWall timer(t_.wall.math_s);
  const auto rows = sampler_->next();
  t_.objective.gradient(x, *t_.train, rows, g);
  return t_.objective.gradient_cost(models::Index(rows.size()));
}

Payload WorkerMath::encode(const models::Vector& v, models::Index dimension) {
  ScopedWall timer(t_.wall.compress_s);
  if (!t_.objective.has_math()) {
    auto e = std::make_shared<models::Encoded>();
    e->bits = compressor_->bits_for(dimension);
    return e;
  }
  return std::make_shared<const models::Encoded>(compressor_->encode(v, rng_));
}

void WorkerMath::decode(const Message& m, models::Vector& out) {
  ScopedWall timer(t_.wall.compress_s);
  if (!t_.objective.has_math()) {
    out.resize(0);
    return;
  }
  compressor_->decode(*m.payload, out);
}

}  // namespace dlsim::sim
