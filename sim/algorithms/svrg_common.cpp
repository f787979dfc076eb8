// The SVRG family's shared pieces (svrg_common.hpp).
#include "sim/algorithms/svrg_common.hpp"
#include "sim/algorithms/svrg_keys.hpp"

#include <algorithm>

#include "sim/collectives/allgather.hpp"
#include "sim/collectives/parameter_server.hpp"
#include "sim/collectives/ring_allreduce.hpp"

namespace dlsim::sim {

namespace {

models::ComputeCost times(models::ComputeCost c, double k) {
  return {c.flops * k, c.seconds * k};
}

}  // namespace

std::shared_ptr<Collective> svrg_collective(Training& t, const std::string& kind,
                                            const std::optional<CompressorSpec>& downlink) {
  if (kind == "parameter-server")
    return std::make_shared<ParameterServer>(t, ParameterServer::Options{downlink, {}});
  if (kind == "ring-allreduce") return std::make_shared<RingAllReduce>(t, RingAllReduce::Options{});
  return std::make_shared<Allgather>(t);
}

std::int64_t epoch_length(const Training& t, std::int64_t shard_passes) {
  const AlgorithmSpec& a = t.scenario.algorithm;
  const SvrgFamilyOptions& o = a.options_as<SvrgFamilyOptions>();
  if (o.epoch_length) return *o.epoch_length;
  if (!t.train) return 1;  // refused in to_scenario.cpp for models without data
  return std::max<std::int64_t>(1, shard_passes * t.train->size() / (t.workers() * a.batch_size));
}

models::ComputeCost full_gradient_cost(const Training& t, int id, std::int64_t batch,
                                       std::int64_t epoch) {
  if (!t.train) return times(t.objective.gradient_cost(batch), double(epoch));
  return t.objective.gradient_cost(models::Index(t.shards[std::size_t(id)].size()));
}

void full_gradient(const Training& t, int id, const models::Vector& x, models::Vector& g) {
  if (!t.computes(id)) {  // no math, or another rank's worker
    g.resize(0);
    return;
  }
  const ScopedWall timer = t.wall.time_math();
  if (!t.train) {
    t.objective.gradient(x, models::Dataset{}, {}, g);
    return;
  }
  t.objective.gradient(x, *t.train, t.shards[std::size_t(id)], g);
}

BatchDifference::BatchDifference(const Training& t, int id, std::int64_t batch)
    : t_(t), batch_(batch), computes_(t.computes(id)) {
  if (computes_ && t.train)
    sampler_ = std::make_unique<models::BatchSampler>(
        t.shards[std::size_t(id)], batch, make_rng(t.scenario.seed, "batches", std::uint64_t(id)));
}

models::ComputeCost BatchDifference::operator()(const models::Vector& x,
                                                const models::Vector& snapshot,
                                                models::Vector& difference) {
  const auto batch = batch_;
  if (!computes_) {  // no math, or another rank's worker
    difference.resize(0);
    return times(t_.objective.gradient_cost(batch), 2);
  }
  const ScopedWall timer = t_.wall.time_math();
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

}  // namespace dlsim::sim
