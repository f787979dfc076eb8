#include "sim/collectives/neighbour_exchange.hpp"

#include <algorithm>

namespace dlsim::sim {

namespace {

// The share p_{to,from} of `from`'s value that `to` mixes in round `round` (to's in-weight
// for from; 0 when they are not neighbours).
double push_share(const topo::GraphSchedule& graph, int to, int from, std::int64_t round) {
  const topo::Neighborhood nb = graph.neighborhood(to, round);
  for (std::size_t j = 0; j < nb.in.size(); ++j)
    if (nb.in[j] == from) return nb.in_weights[j];
  return 0.0;
}

}  // namespace

NeighbourExchange::NeighbourExchange(Node& me, const topo::GraphSchedule& graph,
                                     NodeFailures* failures, FailureRule rule)
    : me_(me), graph_(graph), failures_(failures), rule_(rule) {}

void NeighbourExchange::load(std::int64_t round) {
  round_graph_ = graph_.round(round);
  const topo::RoundGraph& r = *round_graph_;
  const int i = int(me_.id());
  round_ = round;
  out_ = r.out.out(i);
  in_ = r.in.out(i);
  self_weight_ = r.weights.self[i];
  in_weights_ = std::span(r.weights.in).subspan(std::size_t(r.in.offsets[i]), in_.size());
  owned_ = false;
  arrivals_.reserve(in_.size());
  loaded_ = true;
  if (dropped_)
    for (NodeId dead : dropped_->failed) drop(dead);
}

void NeighbourExchange::own() {
  if (owned_) return;
  owned_ = true;
  if (!dropped_) dropped_ = std::make_unique<Dropped>();
  dropped_->out.assign(out_.begin(), out_.end());
  dropped_->in.assign(in_.begin(), in_.end());
  dropped_->weights.assign(in_weights_.begin(), in_weights_.end());
  view_own();
}

void NeighbourExchange::view_own() {
  out_ = dropped_->out;
  in_ = dropped_->in;
  in_weights_ = dropped_->weights;
}

void NeighbourExchange::begin_round(std::int64_t k) {
  if (graph_.time_varying())
    load(k);
  else if (!loaded_)
    load(0);
}

double NeighbourExchange::drop(NodeId dead) {
  own();
  std::vector<NodeId>& own_in = dropped_->in;
  std::vector<NodeId>& own_out = dropped_->out;
  std::vector<double>& own_weights = dropped_->weights;
  double weight = 0;
  const auto in = std::find(own_in.begin(), own_in.end(), dead);
  if (in != own_in.end()) {
    const auto j = in - own_in.begin();
    if (rule_ == FailureRule::row) weight = own_weights[std::size_t(j)];
    own_in.erase(in);
    own_weights.erase(own_weights.begin() + j);
  }
  if (rule_ == FailureRule::column) weight = push_share(graph_, dead, int(me_.id()), round_);
  self_weight_ += weight;
  own_out.erase(std::remove(own_out.begin(), own_out.end(), dead), own_out.end());
  view_own();  // the sizes changed
  return weight;
}

Task<void> NeighbourExchange::send(std::uint64_t tag, Payload message) {
  co_await me_.broadcast(out_, tag, std::move(message));
}

Task<void> NeighbourExchange::send_each(std::uint64_t tag, std::span<Payload> messages) {
  for (std::size_t o = 0; o < out_.size(); ++o)
    co_await me_.send(out_[o], tag, std::move(messages[o]));
}

Task<void> NeighbourExchange::send_then_receive(std::uint64_t tag, Payload message, bool send,
                                                std::int64_t iteration) {
  if (send) co_await me_.broadcast(out_, tag, std::move(message));
  arrivals_.clear();
  const SimTime since = me_.now();
  for (std::size_t j = 0; j < in_.size();) {
    const NodeId src = in_[j];
    std::optional<Message> m =
        co_await NodeFailures::Receive(failures_, me_, src, tag, since, iteration);
    if (!m) {  // src failed: from now on it is out of the neighbourhood
      // (no named local for drop()'s weight: it would take frame space in every worker)
      arrivals_.push_back({std::uint32_t(j), src, drop(src), std::nullopt});
      dropped_->failed.push_back(src);  // drop() made dropped_
      continue;
    }
    arrivals_.push_back({std::uint32_t(j), src, in_weights_[j], std::move(m)});
    ++j;
  }
}

}  // namespace dlsim::sim
