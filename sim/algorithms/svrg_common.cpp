// The SVRG family's shared pieces (svrg_common.hpp): the mean collective over a
// parameter server, allgather or ring all-reduce, the snapshot gradient and the paired
// batch gradients of the variance-reduction term.
#include "sim/algorithms/svrg_common.hpp"

#include <algorithm>

#include "sim/algorithms/algorithms.hpp"

namespace dlsim::sim {

namespace {

models::ComputeCost times(models::ComputeCost c, double k) {
  return {c.flops * k, c.seconds * k};
}

}  // namespace

// ---------------------------------------------------------------- epoch and gradients
std::int64_t epoch_length(const Training& t) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  if (a.epoch_length) return *a.epoch_length;
  if (!t.train) return 1;  // refused in to_scenario.cpp for models without data
  return std::max<std::int64_t>(1, t.train->size() / (t.workers() * a.batch_size));
}

models::ComputeCost full_gradient_cost(const Training& t, int id) {
  if (!t.train)
    return times(t.objective.gradient_cost(t.scenario.algorithm.batch_size),
                 double(epoch_length(t)));
  return t.objective.gradient_cost(models::Index(t.shards[std::size_t(id)].size()));
}

void full_gradient(const Training& t, int id, const models::Vector& x, models::Vector& g) {
  if (!t.objective.has_math()) {
    g.resize(0);
    return;
  }
  ScopedWall timer(t.wall.math());
  if (!t.train) {
    t.objective.gradient(x, models::Dataset{}, {}, g);
    return;
  }
  t.objective.gradient(x, *t.train, t.shards[std::size_t(id)], g);
}

BatchDifference::BatchDifference(const Training& t, int id) : t_(t) {
  if (t.objective.has_math() && t.train)
    sampler_ = std::make_unique<models::BatchSampler>(
        t.shards[std::size_t(id)], t.scenario.algorithm.batch_size,
        make_rng(t.scenario.seed, "batches", std::uint64_t(id)));
}

models::ComputeCost BatchDifference::operator()(const models::Vector& x,
                                                const models::Vector& snapshot,
                                                models::Vector& difference) {
  const auto batch = t_.scenario.algorithm.batch_size;
  if (!t_.objective.has_math()) {
    difference.resize(0);
    return times(t_.objective.gradient_cost(batch), 2);
  }
  ScopedWall timer(t_.wall.math());
  if (!sampler_) {  // no data: the objective's gradient ignores rows
    t_.objective.gradient(x, models::Dataset{}, {}, difference);
    t_.objective.gradient(snapshot, models::Dataset{}, {}, at_snapshot_);
    difference -= at_snapshot_;
    return times(t_.objective.gradient_cost(batch), 2);
  }
  const auto rows = sampler_->next();
  t_.objective.gradient(x, *t_.train, rows, difference);
  t_.objective.gradient(snapshot, *t_.train, rows, at_snapshot_);
  difference -= at_snapshot_;
  return times(t_.objective.gradient_cost(models::Index(rows.size())), 2);
}

// ---------------------------------------------------------------- the collective
MeanExchange::MeanExchange(Training& t, int id, WorkerMath& math) : t_(t), id_(id), math_(math) {
  for (int j = 0; j < t.workers(); ++j)
    if (j != id) others_.push_back(j);
  if (const auto& down = t.scenario.algorithm.downlink_compressor)
    downlink_decoder_ = make_compressor(*down, t.objective.tensor_sizes());
}

Payload MeanExchange::encode(const models::Vector& v, models::Index dimension, RoundFormat f) {
  return f.fp32 ? math_.encode_fp32(v, dimension) : math_.encode(v, dimension, f.stream);
}

void MeanExchange::decode(const Message& m, RoundFormat f, models::Vector& out) {
  if (f.fp32)
    math_.decode_fp32(m, out);
  else
    math_.decode(m, out);
}

Task<void> MeanExchange::mean(std::uint64_t round, const models::Vector& mine, RoundFormat f,
                              models::Vector& mean) {
  const std::string& collective = t_.scenario.algorithm.collective;
  if (collective == "parameter-server") return via_server(round, mine, f, mean);
  if (collective == "ring-allreduce") return ring(round, mine, f, mean);
  return allgather(round, mine, f, mean);
}

Task<void> MeanExchange::allgather(std::uint64_t round, const models::Vector& mine, RoundFormat f,
                                   models::Vector& mean) {
  Node& me = t_.nodes[std::size_t(id_)];
  const Payload own = encode(mine, t_.objective.parameters(), f);
  co_await me.broadcast(others_, round, own);
  models::Vector received;
  mean = models::Vector::Zero(mine.size());
  for (int j = 0; j < t_.workers(); ++j) {
    if (j == id_) {
      decode(Message{id_, id_, round, own}, f, received);
    } else {
      Message m = co_await me.recv(j, round);
      decode(m, f, received);
    }
    if (received.size() == mean.size()) mean += received;
  }
  mean /= double(t_.workers());
}

Task<void> MeanExchange::via_server(std::uint64_t round, const models::Vector& mine, RoundFormat f,
                                    models::Vector& mean) {
  Node& me = t_.nodes[std::size_t(id_)];
  const NodeId server = t_.workers();
  co_await me.send(server, round, encode(mine, t_.objective.parameters(), f));
  Message m = co_await me.recv(server, round);
  if (!t_.objective.has_math()) {
    mean.resize(0);
  } else if (downlink_decoder_) {
    ScopedWall timer(t_.wall.compress());
    downlink_decoder_->decode(*m.payload, mean);
  } else {
    math_.decode_fp32(m, mean);
  }
}

// Reduce-scatter then all-gather of n chunks, as sgd_ring_allreduce.cpp; the owner of a
// summed chunk keeps the rounding it sends, so every replica gets the same mean.
Task<void> MeanExchange::ring(std::uint64_t round, const models::Vector& mine, RoundFormat f,
                              models::Vector& mean) {
  Node& me = t_.nodes[std::size_t(id_)];
  const int n = t_.workers();
  const NodeId next = (id_ + 1) % n, prev = (id_ + n - 1) % n;
  const models::Index total = t_.objective.parameters();
  const bool has_math = t_.objective.has_math();
  auto begin = [&](int c) { return total * c / n; };
  auto length = [&](int c) { return begin(c + 1) - begin(c); };
  auto wrap = [n](int c) { return ((c % n) + n) % n; };
  // Buffers kept between rounds (one per chunk: chunk lengths differ by up to one, and a
  // resized Eigen vector reallocates), so a round allocates nothing per message.
  models::Vector& sum = ring_sum_;
  sum = mine;
  ring_chunks_.resize(std::size_t(n));
  const std::uint64_t steps = 2 * std::uint64_t(n - 1);
  auto payload_of = [&](int c) {
    models::Vector& chunk = ring_chunks_[std::size_t(c)];
    if (has_math) chunk = sum.segment(begin(c), length(c));
    return encode(chunk, length(c), f);
  };
  for (int s = 0; s + 1 < n; ++s) {  // reduce-scatter
    const std::uint64_t tag = round * steps + std::uint64_t(s);
    co_await me.send(next, tag, payload_of(wrap(id_ - s)));
    Message m = co_await me.recv(prev, tag);
    const int c = wrap(id_ - s - 1);
    models::Vector& chunk = ring_chunks_[std::size_t(c)];
    decode(m, f, chunk);
    if (has_math) sum.segment(begin(c), length(c)) += chunk;
  }
  const int owned = wrap(id_ + 1);
  if (n > 1) {
    const Payload self = payload_of(owned);
    models::Vector& chunk = ring_chunks_[std::size_t(owned)];
    decode(Message{id_, id_, 0, self}, f, chunk);
    if (has_math) sum.segment(begin(owned), length(owned)) = chunk;
  } else if (has_math) {  // one worker: its message goes nowhere but is still rounded
    decode(Message{id_, id_, 0, encode(sum, total, f)}, f, sum);
  }
  for (int s = 0; s + 1 < n; ++s) {  // all-gather
    const std::uint64_t tag = round * steps + std::uint64_t(n - 1 + s);
    co_await me.send(next, tag, payload_of(wrap(owned - s)));
    Message m = co_await me.recv(prev, tag);
    const int c = wrap(owned - s - 1);
    models::Vector& chunk = ring_chunks_[std::size_t(c)];
    decode(m, f, chunk);
    if (has_math) sum.segment(begin(c), length(c)) = chunk;
  }
  if (has_math)
    mean = sum / double(n);
  else
    mean.resize(0);
}

// ---------------------------------------------------------------- the parameter server
namespace {

Task<void> mean_server(Training& t, RoundSchedule schedule) {
  const NodeId self = t.workers();
  Node& me = t.nodes[std::size_t(self)];
  WorkerMath math(t, self);
  std::vector<NodeId> workers(std::size_t(t.workers()));
  for (int i = 0; i < t.workers(); ++i) workers[std::size_t(i)] = i;
  std::unique_ptr<models::Compressor> downlink;
  Rng downlink_rng = make_rng(t.scenario.seed, "compress/downlink", std::uint64_t(self));
  if (const auto& down = t.scenario.algorithm.downlink_compressor)
    downlink = make_compressor(*down, t.objective.tensor_sizes());
  const auto d = t.objective.parameters();
  const bool has_math = t.objective.has_math();
  PayloadPool downlink_pool;  // recycled broadcast buffers (payload_pool.hpp)
  models::Vector sum, received;
  for (std::uint64_t round = 0;; ++round) {
    const RoundFormat f = schedule(round);
    sum.setZero(t.objective.dimension());  // same size every round: no allocation
    for (NodeId i : workers) {
      Message m = co_await me.recv(i, round);
      if (f.fp32)
        math.decode_fp32(m, received);
      else
        math.decode(m, received);
      if (received.size() == sum.size()) sum += received;
    }
    sum /= double(t.workers());
    Payload out;
    if (!downlink) {
      out = math.encode_fp32(sum, d);
    } else {
      ScopedWall timer(t.wall.compress());
      if (has_math) {
        auto e = downlink_pool.acquire();
        downlink->encode_into(sum, downlink_rng, *e);
        out = std::move(e);
      } else {
        out = sized_payload(downlink_pool, downlink->bits_for(d), d);
      }
    }
    co_await me.broadcast(workers, round, out);
  }
}

}  // namespace

void spawn_mean_server(Engine& engine, Training& t, RoundSchedule schedule) {
  engine.spawn(mean_server(t, std::move(schedule)));
}

}  // namespace dlsim::sim
