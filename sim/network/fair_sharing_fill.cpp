// Progressive filling, the max-min fair share of one component of flows and resources
// (fair_sharing.hpp; solve_component() calls it): the scanning reference and the heap
// version the engine runs.
#include <algorithm>
#include <limits>
#include <span>

#include "sim/network/fair_sharing.hpp"

namespace dlsim::sim {

// Progressive filling: the resources with the smallest fair share max(left, 0)/Σ weight
// saturate first, all of them at once when several tie within 1e-12 (a symmetric
// pattern then takes one round); their unfixed flows get that share θ times their weight
// (θ / penalty). Under lv08 a flow whose bound b is reached first (b · penalty < θ) is
// fixed at b in a round of its own. Under cm02 every flow fixed in a round gets the same
// value, so the order of the subtractions does not matter; under lv08 they are applied
// in TransferId order (sort_round).

// The flow of component index k (current flows span) takes its value new_rate_[k] out
// of every resource it crosses.
void FairSharing::apply(std::uint32_t k, TransferId id) {
  const double weight = weighted_ ? 1.0 / weightings_[id].penalty : 1.0;  // cm02: penalty 1
  for (int r : routes_[id]) {
    if (r < 0) continue;
    left_[r] -= new_rate_[k];
    weight_sum_[r] -= weight;
    --count_[r];
  }
}

void FairSharing::sort_round(std::span<const TransferId> flows) {
  if (!weighted_) return;
  std::sort(round_fixed_.begin(), round_fixed_.end(),
            [&](std::uint32_t a, std::uint32_t b) { return flows[a] < flows[b]; });
}

// The reference: every round scans all resources and all unfixed flows (O(rounds · F)).
void FairSharing::fill_by_scanning(std::span<const int> resources,
                                   std::span<const TransferId> flows) {
  unfixed_.clear();
  for (std::size_t k = 0; k < flows.size(); ++k) unfixed_.push_back(std::uint32_t(k));
  while (!unfixed_.empty()) {
    double share = std::numeric_limits<double>::infinity();
    for (int r : resources)
      if (count_[r] > 0) share = std::min(share, std::max(left_[r], 0.0) / weight_sum_[r]);
    double bound_level = std::numeric_limits<double>::infinity();
    for (std::uint32_t k : unfixed_) {
      const TransferId id = flows[k];
      if (bound(id) > 0) bound_level = std::min(bound_level, bound(id) * penalty(id));
    }
    const bool by_bound = bound_level < share;
    for (int r : resources)
      saturated_[r] = !by_bound && count_[r] > 0 &&
                      std::max(left_[r], 0.0) / weight_sum_[r] <= share * (1 + 1e-12);
    std::size_t kept = 0;
    round_fixed_.clear();
    for (std::uint32_t k : unfixed_) {
      const TransferId id = flows[k];
      bool fixed = false;
      if (by_bound) {
        fixed = bound(id) > 0 && bound(id) * penalty(id) <= bound_level * (1 + 1e-12);
      } else {
        for (int r : routes_[id]) fixed |= r >= 0 && saturated_[r];
      }
      if (!fixed) {
        unfixed_[kept++] = k;
        continue;
      }
      new_rate_[k] = by_bound ? bound(id) : share / penalty(id);
      round_fixed_.push_back(k);
    }
    unfixed_.resize(kept);
    sort_round(flows);
    for (std::uint32_t k : round_fixed_) apply(k, flows[k]);
  }
}

// The same rounds with the resources' shares in a min-heap (stale entries skipped), the
// bounded flows sorted by the level at which they reach their bound, and only the flows
// of saturated resources visited: O((F + R) log R) per component.
void FairSharing::fill_with_heap(std::span<const int> resources,
                                 std::span<const TransferId> flows) {
  using Entry = ShareEntry;
  auto later = [](const Entry& a, const Entry& b) {
    return a.share != b.share ? a.share > b.share : a.resource > b.resource;
  };
  std::vector<Entry>& heap = share_heap_;
  heap.clear();
  if (resource_version_.size() < capacity_.size()) {
    resource_version_.resize(capacity_.size(), 0);
    round_mark_.resize(capacity_.size(), 0);
  }
  if (component_index_.size() < flows_.size()) component_index_.resize(flows_.size());
  for (std::size_t k = 0; k < flows.size(); ++k) component_index_[flows[k]] = std::uint32_t(k);
  auto entry = [&](int r) {  // r's share now; older entries of r become stale
    return Entry{std::max(left_[r], 0.0) / weight_sum_[r], r, ++resource_version_[r]};
  };
  auto push = [&](int r) {
    heap.push_back(entry(r));
    std::push_heap(heap.begin(), heap.end(), later);
  };
  // Every resource here has users. The entries stay in component order (breadth-first
  // from the seed) until the first round has taken its saturated resources: that round
  // often takes most of them (a synchronous gossip round saturates every port at once),
  // and visiting their flows in component order reads memory mostly in sequence, where
  // the heap's array order jumps about. Only what it leaves becomes a heap.
  for (int r : resources) heap.push_back(entry(r));
  bool first_round = true;
  auto build_heap = [&] {
    std::make_heap(heap.begin(), heap.end(), later);
    first_round = false;
  };
  bound_levels_.clear();
  if (weighted_) {
    for (std::size_t k = 0; k < flows.size(); ++k) {
      const Weighting& w = weightings_[flows[k]];
      if (w.bound > 0) bound_levels_.push_back({w.bound * w.penalty, std::uint32_t(k)});
    }
    std::sort(bound_levels_.begin(), bound_levels_.end(), [](BoundLevel a, BoundLevel b) {
      return a.level != b.level ? a.level < b.level : a.k < b.k;
    });
  }
  std::size_t next_bound = 0;
  std::size_t unfixed = flows.size();
  while (unfixed > 0) {
    auto valid = [&](const Entry& e) {
      return count_[e.resource] > 0 && e.version == resource_version_[e.resource];
    };
    double share = std::numeric_limits<double>::infinity();
    if (first_round) {  // every entry is valid: the smallest share by a linear scan
      for (const Entry& e : heap) share = std::min(share, e.share);
    } else {
      while (!valid(heap.front())) {
        std::pop_heap(heap.begin(), heap.end(), later);
        heap.pop_back();
      }
      share = heap.front().share;
    }
    while (next_bound < bound_levels_.size() && new_rate_[bound_levels_[next_bound].k] >= 0)
      ++next_bound;
    const double bound_level = next_bound < bound_levels_.size()
                                   ? bound_levels_[next_bound].level
                                   : std::numeric_limits<double>::infinity();
    round_fixed_.clear();
    if (bound_level < share) {
      if (first_round) build_heap();
      for (std::size_t b = next_bound;
           b < bound_levels_.size() && bound_levels_[b].level <= bound_level * (1 + 1e-12); ++b) {
        const std::uint32_t k = bound_levels_[b].k;
        if (new_rate_[k] >= 0) continue;
        new_rate_[k] = weightings_[flows[k]].bound;  // bound_levels_: lv08 only
        round_fixed_.push_back(k);
      }
    } else {
      saturated_list_.clear();
      const double limit = share * (1 + 1e-12);
      // Pop the saturated resources one by one; when a round saturates a large part of
      // the heap (a symmetric pattern saturates every resource at once), take the rest
      // in one linear pass and rebuild the heap instead: O(n) instead of O(n log n).
      // The set found is the same, and its order does not matter (the values fixed in
      // a round do not depend on the resource that fixed them).
      const std::size_t bulk = first_round ? 0 : std::max<std::size_t>(64, heap.size() / 32);
      std::size_t popped = 0;
      while (!heap.empty() && heap.front().share <= limit && popped < bulk) {
        if (valid(heap.front())) saturated_list_.push_back(heap.front().resource);
        std::pop_heap(heap.begin(), heap.end(), later);
        heap.pop_back();
        ++popped;
      }
      if (first_round || (popped == bulk && !heap.empty() && heap.front().share <= limit)) {
        std::size_t kept = 0;
        for (const Entry& e : heap) {
          if (!valid(e)) continue;  // stale: skipped by every later round anyway
          if (e.share <= limit)
            saturated_list_.push_back(e.resource);
          else
            heap[kept++] = e;
        }
        heap.resize(kept);
        if (first_round && kept == 0) {
          // Every resource saturates in the first round (a synchronous gossip round):
          // every flow gets the share, as the visit below would give it, and nothing is
          // left to subtract it from.
          for (std::size_t k = 0; k < flows.size(); ++k)
            new_rate_[k] = weighted_ ? share / weightings_[flows[k]].penalty : share;
          return;
        }
        build_heap();
      }
      for (int r : saturated_list_) {
        for (TransferId id : users_[r]) {
          const std::uint32_t k = component_index_[id];
          if (new_rate_[k] >= 0) continue;
          new_rate_[k] = weighted_ ? share / weightings_[id].penalty : share;  // cm02: penalty 1
          round_fixed_.push_back(k);
        }
      }
    }
    sort_round(flows);
    changed_.clear();
    ++round_;
    for (std::uint32_t k : round_fixed_) {
      apply(k, flows[k]);
      --unfixed;
      for (int q : routes_[flows[k]]) {
        if (q < 0 || round_mark_[q] == round_) continue;
        round_mark_[q] = round_;
        changed_.push_back(q);
      }
    }
    for (int q : changed_) {
      if (count_[q] > 0) push(q);
    }
  }
}

}  // namespace dlsim::sim
