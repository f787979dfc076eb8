#include "sim/network/fair_sharing.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <span>

#include "sim/engine/heap_prefault.hpp"
#include "sim/network/dense_key_order.hpp"
#include "sim/network/network_model.hpp"

namespace dlsim::sim {

namespace {
// Event kinds of the scheduler's own events.
constexpr std::uint64_t kSolve = 0, kWake = 1;

bool later_due(SimTime a_finish, TransferId a_id, SimTime b_finish, TransferId b_id) {
  return a_finish != b_finish ? a_finish > b_finish : a_id > b_id;
}
}  // namespace

FairSharing::FairSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink,
                         Recompute mode)
    : engine_(engine),
      config_(config),
      sink_(sink),
      mode_(mode),
      weighted_(config.model() == NetworkModel::lv08),
      rate_factor_(weighted_ ? lv08::kBandwidthFactor : 1.0) {
  const int n = config.nodes();
  capacity_.resize(2 * std::size_t(n));
  for (int i = 0; i < n; ++i) {
    capacity_[i] = config.egress(i);
    capacity_[n + i] = config.ingress(i);
  }
  users_.resize(capacity_.size());
  marked_.resize(capacity_.size());
  find_whether_links_bind();
}

// When no link has its own values and the default link is at least as fast as
// min(fastest egress, fastest ingress), no link can be slower than both ports of a flow
// (min(egress(src), ingress(dst)) is never larger): link_resource() is then -1 for every
// flow, found without looking the link up (a million flows start in a round).
void FairSharing::find_whether_links_bind() {
  links_never_bind_ = false;
  if (config_.has_link_values()) return;
  double fastest_egress = 0, fastest_ingress = 0;
  for (int i = 0; i < config_.nodes(); ++i) {
    fastest_egress = std::max(fastest_egress, config_.egress(i));
    fastest_ingress = std::max(fastest_ingress, config_.ingress(i));
  }
  links_never_bind_ = config_.default_link().bandwidth >= std::min(fastest_egress, fastest_ingress);
}

int FairSharing::link_resource(NodeId src, NodeId dst) {
  if (links_never_bind_) return -1;
  // A link at least as fast as both its ports can never be the bottleneck: every flow
  // on it also crosses those ports, where its share is no larger.
  const double bw = config_.link(src, dst).bandwidth;
  if (bw >= std::min(config_.egress(src), config_.ingress(dst))) return -1;
  const auto key = (std::uint64_t(std::uint32_t(src)) << 32) | std::uint32_t(dst);
  auto [it, inserted] = link_ids_.try_emplace(key, int(capacity_.size()));
  if (inserted) {
    capacity_.push_back(bw);
    users_.emplace_back();
    marked_.push_back(0);
  }
  return it->second;
}

// lv08: the flow's penalty and window bound from its route egress_src, link, ingress_dst
// (network_model.hpp); cm02 keeps penalty 1 and no bound.
void FairSharing::set_penalty_and_bound(TransferId id, NodeId src, NodeId dst) {
  if (!weighted_) return;
  const LinkParams link = config_.link(src, dst);
  weightings_[id] = {
      lv08::penalty(link.latency, config_.egress(src), link.bandwidth, config_.ingress(dst)),
      lv08::window_bound(link.latency)};
}

void FairSharing::mark(int resource) {
  if (resource < 0 || marked_[resource]) return;  // once per solve: the first mark's order
  marked_[resource] = 1;
  dirty_.push_back(resource);
}

void FairSharing::attach(TransferId id) {
  Flow& f = flows_[id];
  for (int k = 0; k < 3; ++k) {
    const int r = routes_[id][k];
    if (r < 0) continue;
    f.position[k] = int(users_[r].size());
    users_[r].push_back(id);
    mark(r);
  }
}

void FairSharing::detach(TransferId id) {
  Flow& f = flows_[id];
  for (int k = 0; k < 3; ++k) {
    const int r = routes_[id][k];
    if (r < 0) continue;
    auto& list = users_[r];
    const TransferId moved = list.back();  // swap-remove; fix the moved flow's position
    list[f.position[k]] = moved;
    Flow& m = flows_[moved];
    for (int j = 0; j < 3; ++j)
      if (routes_[moved][j] == r) m.position[j] = f.position[k];
    list.pop_back();
    // A resource left without flows changes no rate (and a flow attached to it later
    // marks it again): only one that still has flows needs solving.
    if (!list.empty()) mark(r);
  }
}

void FairSharing::reserve(std::size_t transfers) {
  // The tables indexed by transfer id, and the solver's scratch, which a round of that
  // many flows fills: reserved, they are not grown by doubling (each doubling a copy onto
  // fresh pages), and during a large run the populating thread maps them while the run
  // is still setting up (heap_prefault.hpp).
  const std::size_t resources = capacity_.size();
  const auto reserve_and_populate = [](auto& table, std::size_t size) {
    table.reserve(size);
    HeapPrefault::populate_capacity(table);
  };
  reserve_and_populate(flows_, transfers);
  reserve_and_populate(routes_, transfers);
  if (weighted_) reserve_and_populate(weightings_, transfers);
  reserve_and_populate(flow_stamp_, transfers);
  reserve_and_populate(component_index_, transfers);
  reserve_and_populate(due_, transfers);
  reserve_and_populate(expired_, transfers);
  reserve_and_populate(done_, transfers);
  reserve_and_populate(slots_, transfers);
  reserve_and_populate(component_flows_, transfers);
  reserve_and_populate(new_rate_, transfers);
  reserve_and_populate(dirty_, resources);
  reserve_and_populate(component_resources_, resources);
  reserve_and_populate(resource_stamp_, resources);
  reserve_and_populate(left_, resources);
  reserve_and_populate(count_, resources);
  reserve_and_populate(weight_sum_, resources);
  reserve_and_populate(saturated_, resources);
  reserve_and_populate(share_heap_, resources);
  reserve_and_populate(resource_version_, resources);
  reserve_and_populate(round_mark_, resources);
  reserve_and_populate(saturated_list_, resources);
}

void FairSharing::add(TransferId id, NodeId src, NodeId dst, double bits) {
  if (id >= flows_.size()) {
    flows_.resize(std::size_t(id) + 1);
    routes_.resize(std::size_t(id) + 1);
    if (weighted_) weightings_.resize(std::size_t(id) + 1);
  }
  const int n = config_.nodes();
  routes_[id] = Route{src, n + dst, link_resource(src, dst)};
  Flow& f = flows_[id];
  f = Flow{.generation = f.generation + 1,
           .remaining = bits,
           .since = engine_.now(),
           .order = next_order_++,
           .active = true};
  set_penalty_and_bound(id, src, dst);
  ++active_;
  attach(id);
  request_solve();
}

void FairSharing::rates_changed() {
  const int n = config_.nodes();
  for (int i = 0; i < n; ++i) {
    capacity_[i] = config_.egress(i);
    capacity_[n + i] = config_.ingress(i);
  }
  for (const auto& [key, resource] : link_ids_)
    capacity_[resource] = config_.link(NodeId(key >> 32), NodeId(key & 0xffffffffu)).bandwidth;
  find_whether_links_bind();
  for (TransferId id = 0; id < flows_.size(); ++id) {
    Flow& f = flows_[id];
    if (!f.active) continue;
    const Route route = routes_[id];
    set_penalty_and_bound(id, route[0], route[1] - n);
    const int link = link_resource(route[0], route[1] - n);
    if (link != route[2]) {
      detach(id);
      routes_[id][2] = link;
      attach(id);
    }
  }
  for (int r = 0; r < int(capacity_.size()); ++r) mark(r);
  request_solve();
}

void FairSharing::request_solve() {
  if (solve_pending_) return;
  solve_pending_ = true;
  engine_.schedule(engine_.now(), this, kSolve);
}

void FairSharing::on_event(std::uint64_t kind) {
  if (kind == kSolve) {
    solve();
    arm();
  } else {
    wake();
  }
}

void FairSharing::solve() {
  solve_pending_ = false;
  for (int r : dirty_) marked_[r] = 0;
  if (mode_ == Recompute::full) {
    dirty_.clear();
    for (int r = 0; r < int(capacity_.size()); ++r) dirty_.push_back(r);
  }
  if (++stamp_ == 0) {  // wrapped: forget all stamps
    std::fill(resource_stamp_.begin(), resource_stamp_.end(), 0);
    std::fill(flow_stamp_.begin(), flow_stamp_.end(), 0);
    stamp_ = 1;
  }
  resource_stamp_.resize(capacity_.size(), 0);
  flow_stamp_.resize(flows_.size(), 0);
  left_.resize(capacity_.size());
  count_.resize(capacity_.size());
  weight_sum_.resize(capacity_.size());
  saturated_.resize(capacity_.size());
  component_resources_.clear();
  component_flows_.clear();
  // Each unvisited marked resource that has users seeds one connected component
  // (breadth-first over resource -> its flows -> their resources).
  for (int seed : dirty_) {
    if (resource_stamp_[seed] == stamp_ || users_[seed].empty()) continue;
    const std::size_t first_flow = component_flows_.size();
    const std::size_t first_resource = component_resources_.size();
    resource_stamp_[seed] = stamp_;
    component_resources_.push_back(seed);
    for (std::size_t q = first_resource; q < component_resources_.size(); ++q) {
      for (TransferId id : users_[component_resources_[q]]) {
        if (flow_stamp_[id] == stamp_) continue;
        flow_stamp_[id] = stamp_;
        component_flows_.push_back(id);
        for (int r : routes_[id]) {
          if (r < 0 || resource_stamp_[r] == stamp_) continue;
          resource_stamp_[r] = stamp_;
          component_resources_.push_back(r);
        }
      }
    }
    solve_component(first_flow, first_resource);
  }
  dirty_.clear();
  compact_due();
}

void FairSharing::solve_component(std::size_t first_flow, std::size_t first_resource) {
  const auto resources = std::span(component_resources_).subspan(first_resource);
  const auto flows = std::span(component_flows_).subspan(first_flow);
  const std::size_t flow_count = flows.size();
  flows_solved_ += flow_count;
  for (int r : resources) {
    left_[r] = capacity_[r];
    count_[r] = int(users_[r].size());
    if (!weighted_) {
      weight_sum_[r] = double(count_[r]);
    } else {
      double sum = 0;
      for (TransferId id : users_[r]) sum += 1.0 / weightings_[id].penalty;
      weight_sum_[r] = sum;
    }
  }
  new_rate_.assign(flow_count, -1.0);  // -1: not fixed yet
  if (mode_ == Recompute::full)
    fill_by_scanning(resources, flows);
  else
    fill_with_heap(resources, flows);
  const SimTime now = engine_.now();
  for (std::size_t k = 0; k < flow_count; ++k) {
    if (k + kFlowsAhead < flow_count) prefetch_flow(flows[k + kFlowsAhead]);
    const TransferId id = flows[k];
    Flow& f = flows_[id];
    const double rate = new_rate_[k] * rate_factor_;
    if (rate == f.rate) continue;  // unchanged: keep its accounting untouched
    f.remaining -= f.rate * (now - f.since).seconds();
    f.since = now;
    f.rate = rate;
    f.finish =
        f.rate > 0 ? now + transmission_time(std::max(f.remaining, 0.0), f.rate) : SimTime::max();
    if (f.rate > 0 && f.finish == SimTime::max()) engine_.note_beyond_clock_end();  // saturated
    ++f.generation;
    due_.push_back(Due{f.finish, id, f.generation});
    std::push_heap(due_.begin(), due_.end(), [](const Due& a, const Due& b) {
      return later_due(a.finish, a.id, b.finish, b.id);
    });
  }
}

void FairSharing::compact_due() {
  // Re-planned flows leave stale entries behind; drop them once they dominate the heap.
  if (due_.size() < 1024 || due_.size() < 4 * active_) return;
  std::erase_if(due_, [&](const Due& d) {
    const Flow& f = flows_[d.id];
    return !f.active || f.generation != d.generation;
  });
  std::make_heap(due_.begin(), due_.end(), [](const Due& a, const Due& b) {
    return later_due(a.finish, a.id, b.finish, b.id);
  });
}

void FairSharing::arm() {
  auto later = [](const Due& a, const Due& b) { return later_due(a.finish, a.id, b.finish, b.id); };
  // Drop stale entries (flows re-planned or finished since) from the top.
  while (!due_.empty()) {
    const Due& top = due_.front();
    const Flow& f = flows_[top.id];
    if (f.active && f.generation == top.generation) break;
    std::pop_heap(due_.begin(), due_.end(), later);
    due_.pop_back();
  }
  if (due_.empty() || due_.front().finish == SimTime::max()) return;
  const SimTime at = due_.front().finish;
  if (!wakeups_.empty() && wakeups_.front() <= at) return;  // an earlier wake-up re-arms
  wakeups_.push_back(at);
  std::push_heap(wakeups_.begin(), wakeups_.end(), std::greater<>());
  engine_.schedule(at, this, kWake);
}

void FairSharing::wake() {
  std::pop_heap(wakeups_.begin(), wakeups_.end(), std::greater<>());
  wakeups_.pop_back();
  auto later = [](const Due& a, const Due& b) { return later_due(a.finish, a.id, b.finish, b.id); };
  const SimTime now = engine_.now();
  done_.clear();
  auto expire_live = [&](TransferId id) {
    Flow& f = flows_[id];
    detach(id);
    f.active = false;
    --active_;
    done_.push_back({f.order, id});
  };
  auto expire = [&](const Due& d) {
    const Flow& f = flows_[d.id];
    if (f.active && f.generation == d.generation) expire_live(d.id);  // else stale
  };
  // The due entries in (finish, id) order, popped one by one; when a large part of the
  // heap is due (a synchronous round ends at one instant), the rest is taken in one
  // linear pass and sorted: the same order (detach() depends on it), with contiguous
  // reads instead of a sift-down through the whole heap per entry. The switch comes after
  // 1/512 of the heap: in a heap of millions a pop's sift-down through ~log2(n) levels
  // misses the cache at most of them (an estimate: perf put 42 % of this function's samples
  // on one of its loads), where the pass reads entries in order (1/32 before: 62,500 pops
  // in a 1 M-worker round; README "Prefetching what the next steps touch").
  const std::size_t bulk = std::max<std::size_t>(64, due_.size() / 512);
  std::size_t popped = 0;
  while (!due_.empty() && due_.front().finish <= now && popped < bulk) {
    const Due top = due_.front();
    std::pop_heap(due_.begin(), due_.end(), later);
    due_.pop_back();
    ++popped;
    expire(top);
  }
  if (popped == bulk && !due_.empty() && due_.front().finish <= now) {
    expired_.clear();
    std::size_t kept = 0;
    for (const Due& d : due_) {
      if (d.finish <= now)
        expired_.push_back(d);
      else
        due_[kept++] = d;
    }
    due_.resize(kept);
    std::make_heap(due_.begin(), due_.end(), later);
    // Stale entries are skipped in any order: drop them, and take the live ones in
    // (finish, id) order. Those normally all end now (a flow is expired at its own
    // finish), so that is the ids' order, which for_each_by_dense_key visits in two
    // linear passes.
    std::erase_if(expired_, [&](const Due& d) {
      const Flow& f = flows_[d.id];
      return !f.active || f.generation != d.generation;
    });
    const bool all_now = std::all_of(expired_.begin(), expired_.end(),
                                     [&](const Due& d) { return d.finish == now; });
    auto id_of = [](const Due& d) { return d.id; };
    if (!all_now ||
        !for_each_by_dense_key(expired_, id_of, id_of, slots_,
                               [&](std::uint64_t, TransferId id) { expire_live(id); })) {
      std::sort(expired_.begin(), expired_.end(),
                [&](const Due& a, const Due& b) { return later(b, a); });
      for (const Due& d : expired_) expire_live(d.id);  // the stale ones are gone
    }
  }
  if (!done_.empty()) request_solve();
  arm();
  // Simultaneous ends are reported in start order (orders are unique; sorting the pairs
  // themselves reads no flow).
  using Done = std::pair<std::uint64_t, TransferId>;
  if (!for_each_by_dense_key(
          done_, [](const Done& d) { return d.first; }, [](const Done& d) { return d.second; },
          slots_, [&](std::uint64_t, TransferId id) { sink_.transmitted(id); })) {
    std::sort(done_.begin(), done_.end());
    for (const auto& [order, id] : done_) sink_.transmitted(id);
  }
}

}  // namespace dlsim::sim
