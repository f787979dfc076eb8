// WorkerMath (worker_math.hpp) and make_compressor: the scenario's compressor chain per
// message stream, built by models/compress/factory.cpp.
#include "sim/runtime/worker_math.hpp"

#include <stdexcept>
#include <string>

#include "models/compress/factory.hpp"
#include "models/cpu/elementwise.hpp"
#include "sim/network/sized_payload.hpp"
#include "sim/scenario/input_error.hpp"

namespace dlsim::sim {

std::unique_ptr<models::Compressor> make_compressor(
    const CompressorSpec& spec, const std::vector<models::Index>& tensor_sizes) {
  return models::build_compressor(spec, tensor_sizes);
}

const models::Compressor& Training::decoder() {
  if (!shared_decoder)
    shared_decoder = make_compressor(scenario.algorithm.compressor, objective.tensor_sizes());
  return *shared_decoder;
}

WorkerMath::WorkerMath(Training& training, int id)
    : t_(training), id_(id), decoder_(&training.decoder()) {
  if (training.computes(id) && training.train && id < training.workers())
    sampler_ = std::make_unique<models::BatchSampler>(
        training.shards[id], training.scenario.algorithm.batch_size,
        make_rng(training.scenario.seed, "batches", std::uint64_t(id)));
}

WorkerMath::Stream& WorkerMath::stream(int id) {
  for (Stream& s : streams_)
    if (s.id == id) return s;
  streams_.emplace_back().id = id;
  return streams_.back();
}

WorkerMath::Stream& WorkerMath::stream_with_compressor(int stream_id) {
  Stream& s = stream(stream_id);
  if (!s.compressor) {
    s.compressor = make_compressor(t_.scenario.algorithm.compressor, t_.objective.tensor_sizes());
    const std::string purpose =
        stream_id == 0 ? "compress" : "compress/" + std::to_string(stream_id);
    s.rng = std::make_unique<Rng>(make_rng(t_.scenario.seed, purpose, std::uint64_t(id_)));
  }
  return s;
}

models::Compressor& WorkerMath::stream_compressor(int stream_id) {
  return *stream_with_compressor(stream_id).compressor;
}

models::ComputeCost WorkerMath::gradient(const models::Vector& x, models::Vector& g) {
  const auto batch = t_.scenario.algorithm.batch_size;
  // Another rank's node: its owner computes (and charges) the gradient.
  if (!t_.local(id_)) return {};
  if (!sampler_) {
    // No data (consensus): the objective's gradient ignores rows and data.
    if (t_.objective.has_math()) t_.objective.gradient(x, models::Dataset{}, {}, g);
    return t_.objective.gradient_cost(batch);
  }
  const ScopedWall timer = t_.wall.time_math();
  const auto rows = sampler_->next();
  t_.objective.gradient(x, *t_.train, rows, g);
  prefetch_upcoming_batch();
  return t_.objective.gradient_cost(models::Index(rows.size()));
}

// A small batch's rows lie at random places in the data set, and gathering them cold cost
// about 0.6 µs per step of case (f) (one 784-byte row; README "Case (f)"). Fetched now, they
// arrive while the other workers compute. A large batch is left alone: it would only push
// this worker's vectors out of the cache.
void WorkerMath::prefetch_upcoming_batch() const {
  constexpr models::Index kMostBytes = 64 * 1024;
  const models::Dataset& data = *t_.train;
  const auto rows = sampler_->upcoming();
  if (models::Index(rows.size()) * data.feature_count() * data.features.value_bytes() > kMostBytes)
    return;
  data.features.prefetch_rows(rows);
  for (const auto r : rows) models::prefetch_line(data.labels.data() + r);
}

Payload WorkerMath::encode(const models::Vector& v, models::Index dimension, int stream) {
  if (!t_.ranks) return encode_here(v, dimension, stream);
  return t_.ranks->route(NodeId(id_), [&] { return encode_here(v, dimension, stream); });
}

Payload WorkerMath::encode_difference(const models::Vector& a, const models::Vector& b,
                                      models::Index dimension, int stream) {
  if (a.size() != b.size())
    throw std::logic_error("WorkerMath::encode_difference: vectors of different sizes");
  // No values, no difference: only the size (and no stream record for its scratch).
  if (!t_.objective.has_math()) return encode(a, dimension, stream);
  models::Vector& input = this->stream(stream).input;
  input.resize(a.size());  // same size every time: no allocation once sized
  models::elementwise::subtract(input.data(), a.data(), b.data(), a.size());
  return encode(input, dimension, stream);
}

Payload WorkerMath::encode_here(const models::Vector& v, models::Index dimension, int stream) {
  const ScopedWall timer = t_.wall.time_compress();
  // No values: only the size, which the stateless decoder's chain gives as well; no
  // stream record, compressor, random stream (2.5 KB) or buffer is built for nothing.
  if (!t_.objective.has_math()) return sized_payload(decoder_->bits_for(dimension), dimension);
  Stream& s = stream_with_compressor(stream);
  auto e = s.pool.acquire();
  s.compressor->encode_into(v, *s.rng, *e);
  return e;
}

void WorkerMath::decode(const Message& m, models::Vector& out) {
  if (!t_.computes(id_)) {  // nothing to decode, nothing to time
    out.resize(0);
    return;
  }
  const ScopedWall timer = t_.wall.time_compress();
  decoder_->decode(*m.payload, out);
}

void WorkerMath::add_decoded(const Message& m, double weight, models::Vector& target) {
  if (!t_.computes(id_)) return;
  const ScopedWall timer = t_.wall.time_compress();
  decoder_->add_decoded(*m.payload, weight, target);
}

void WorkerMath::add_own_decoded(const Message& m, double weight, models::Vector& target,
                                 int stream) {
  if (!t_.computes(id_) || !t_.objective.has_math()) return;
  const ScopedWall timer = t_.wall.time_compress();
  if (stream_compressor(stream).add_last_encoded(weight, target)) return;
  decoder_->add_decoded(*m.payload, weight, target);
}

Payload WorkerMath::encode_fp32(const models::Vector& v, models::Index dimension) {
  if (!t_.ranks) return encode_fp32_here(v, dimension);
  return t_.ranks->route(NodeId(id_), [&] { return encode_fp32_here(v, dimension); });
}

Payload WorkerMath::encode_fp32_here(const models::Vector& v, models::Index dimension) {
  const ScopedWall timer = t_.wall.time_compress();
  if (!t_.objective.has_math()) return sized_payload(fp32_.bits_for(dimension), dimension);
  // fp32 draws nothing: one idle generator per thread instead of 2.5 KB per node.
  thread_local Rng no_draws{0};
  auto e = stream(kFp32Stream).pool.acquire();
  fp32_.encode_into(v, no_draws, *e);
  return e;
}

void WorkerMath::decode_fp32(const Message& m, models::Vector& out) {
  if (!t_.computes(id_)) {  // nothing to decode, nothing to time
    out.resize(0);
    return;
  }
  const ScopedWall timer = t_.wall.time_compress();
  fp32_.decode(*m.payload, out);
}

}  // namespace dlsim::sim
