#include "sim/algorithms/compressed_push_sum.hpp"

#include <algorithm>
#include <cmath>

namespace dlsim::sim {

Eigen::ArrayXd banded_adaptive_step(const Eigen::ArrayXd& second_moment, Eigen::Index dimension,
                                    double gamma, double epsilon, double band) {
  const double top = std::min(gamma, 1.0);
  if (second_moment.size() == 0) return Eigen::ArrayXd::Constant(dimension, top);
  const double typical = std::sqrt(second_moment.mean());
  const Eigen::ArrayXd factor =
      ((typical + epsilon) / (second_moment.sqrt() + epsilon)).max(1 / band).min(1.0);
  return (gamma * factor).min(1.0);
}

CompressedPushSumNode::CompressedPushSumNode(const models::Vector& x0,
                                             const CompressedPushSumOptions& options)
    : options_(options), x_(x0) {
  // No math (profile models): everything stays empty.
  const models::Index weights = x0.size() == 0 ? 0 : options.adaptive ? x0.size() : 1;
  w_ = models::Vector::Ones(weights);
}

void CompressedPushSumNode::debiased(models::Vector& z) const {
  if (w_.size() == 1)
    z = x_ / w_[0];
  else
    z = x_.cwiseQuotient(w_);
}

CompressedPushSumNode::Copy& CompressedPushSumNode::copy(std::map<int, Copy>& copies, int key) {
  auto it = copies.find(key);
  if (it != copies.end()) return it->second;
  Copy c;
  c.numerator = models::Vector::Zero(x_.size());
  // adag-sgp: every node knows the initial weights are 1 (header comment)
  c.weight = options_.adaptive ? models::Vector::Ones(w_.size()) : models::Vector::Zero(w_.size());
  if (options_.adaptive) c.step.emplace(options_.gamma, options_.beta, options_.epsilon);
  return copies.emplace(key, std::move(c)).first->second;
}

void CompressedPushSumNode::add(Copy& c, const models::Vector& q_numerator,
                                const models::Vector& q_weight) {
  if (x_.size() == 0) return;
  c.numerator += q_numerator;
  c.weight += q_weight;
  if (c.step) c.step->observe(q_numerator);
}

void CompressedPushSumNode::differences(int stream, models::Vector& numerator,
                                        models::Vector& weight) {
  const Copy& c = copy(mine_, stream);
  numerator = x_ - c.numerator;
  weight = w_ - c.weight;
}

void CompressedPushSumNode::sent(int stream, const models::Vector& q_numerator,
                                 const models::Vector& q_weight) {
  add(copy(mine_, stream), q_numerator, q_weight);
}

void CompressedPushSumNode::received(int from, const models::Vector& q_numerator,
                                     const models::Vector& q_weight) {
  add(copy(theirs_, from), q_numerator, q_weight);
}

void CompressedPushSumNode::accumulate(const Copy& c, double share) {
  if (!c.step) {
    const double s = share * options_.gamma;
    delta_x_ += s * c.numerator;
    delta_w_ += s * c.weight;
    return;
  }
  const Eigen::ArrayXd gamma = banded_adaptive_step(
      c.step->second_moment(), x_.size(), options_.gamma, options_.epsilon, options_.band);
  delta_x_.array() += share * gamma * c.numerator.array();
  delta_w_.array() += share * gamma * c.weight.array();
}

void CompressedPushSumNode::mix(std::span<const CopyShare> incoming,
                                std::span<const CopyShare> outgoing) {
  if (x_.size() == 0) return;
  delta_x_ = models::Vector::Zero(x_.size());
  delta_w_ = models::Vector::Zero(w_.size());
  for (const CopyShare& in : incoming) accumulate(copy(theirs_, in.key), in.share);
  for (const CopyShare& out : outgoing) accumulate(copy(mine_, out.key), -out.share);
  x_ += delta_x_;
  w_ += delta_w_;
}

}  // namespace dlsim::sim
