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
  for (NodeId dead : failed_) drop(dead);
}

void NeighbourExchange::own() {
  if (owned_) return;
  owned_ = true;
  own_out_.assign(out_.begin(), out_.end());
  own_in_.assign(in_.begin(), in_.end());
  own_weights_.assign(in_weights_.begin(), in_weights_.end());
  view_own();
}

void NeighbourExchange::view_own() {
  out_ = own_out_;
  in_ = own_in_;
  in_weights_ = own_weights_;
}

void NeighbourExchange::begin_round(std::int64_t k) {
  if (graph_.time_varying())
    load(k);
  else if (!loaded_)
    load(0);
}

double NeighbourExchange::drop(NodeId dead) {
  own();
  double weight = 0;
  const auto in = std::find(own_in_.begin(), own_in_.end(), dead);
  if (in != own_in_.end()) {
    const auto j = in - own_in_.begin();
    if (rule_ == FailureRule::row) weight = own_weights_[std::size_t(j)];
    own_in_.erase(in);
    own_weights_.erase(own_weights_.begin() + j);
  }
  if (rule_ == FailureRule::column) weight = push_share(graph_, dead, int(me_.id()), round_);
  self_weight_ += weight;
  own_out_.erase(std::remove(own_out_.begin(), own_out_.end(), dead), own_out_.end());
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

Task<void> NeighbourExchange::receive(std::uint64_t tag, std::int64_t iteration) {
  arrivals_.clear();
  const SimTime since = me_.now();
  for (std::size_t j = 0; j < in_.size();) {
    const NodeId src = in_[j];
    std::optional<Message> m =
        co_await NodeFailures::Receive(failures_, me_, src, tag, since, iteration);
    if (!m) {  // src failed: from now on it is out of the neighbourhood
      failed_.push_back(src);
      const double weight = drop(src);
      arrivals_.push_back({j, src, weight, std::nullopt});
      continue;
    }
    arrivals_.push_back({j, src, in_weights_[j], std::move(m)});
    ++j;
  }
}

Task<void> NeighbourExchange::exchange(std::uint64_t tag, Payload message, std::int64_t iteration) {
  co_await send(tag, std::move(message));
  co_await receive(tag, iteration);
}

}  // namespace dlsim::sim
