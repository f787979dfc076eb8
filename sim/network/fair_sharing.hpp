// `fair` sharing: fluid flows share every egress port, ingress port and link by
// max-min fairness (progressive filling: repeatedly saturate the resources with the
// smallest fair share). This is SimGrid's CM02 model without its TCP correction
// factors and window bound; network.model lv08 adds them (see below).
//
// Incremental recomputation (as SimGrid's lmm solver with its "modified" constraint
// sets): a change (a flow starts or ends, a rate changes) marks the resources it
// touches; the solver re-runs progressive filling only on the connected components of
// the flow/resource graph that contain a marked resource. (SimGrid 3.32's selective
// update can miss part of such a component when several flows start at once, and then
// is not max-min fair: docs/design.md §7, tests/simgrid.) Progressive filling is run
// per component, and its result is a function of the component's flows alone (all
// flows fixed in one round get the same share, so the order of the subtractions does
// not matter), so the rates are bit-identical to re-solving every component
// (Recompute::full, the reference the tests compare against; it also fills by scanning
// every resource and flow each round, where the incremental mode keeps the shares in a
// heap and visits only the flows of saturated resources). Changes are solved in
// batches, not once per instant: the first change after a solve schedules a solve event
// at the current instant, and every change made before that event runs joins it (the
// 1,000 sends of processes resumed at one instant cost one solve, not 1,000); a change
// made at the same instant after the solve ran (by a process resumed after it) gets a
// solve of its own at that instant.
//
// A flow keeps (remaining bits at `since`, rate, finish time); these are updated only
// when its rate actually changes, and a flow ends at
// since + ⌈remaining / rate⌉ (whole picoseconds). Finish times wait in a heap.
//
// network.model lv08 (network_model.hpp) makes the filling weighted and bounded, as
// SimGrid's lmm solver: a flow of weight w gets θ · w while no resource it crosses is
// saturated at level θ (resource r saturates at θ = left_r / Σ w of its unfixed flows),
// or its bound b once θ reaches b / w; its rate is 0.97 times that value. The flows
// fixed in one round are then applied in TransferId order, so that the incremental and
// the full recomputation still subtract the same values in the same order. Under cm02
// every weight is 1 and there is no bound: the arithmetic is the unweighted one.
#pragma once

#include <array>
#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/container/small_vector.hpp>

#include "sim/engine/engine.hpp"
#include "sim/engine/prefetch.hpp"
#include "sim/network/transfer_scheduler.hpp"

namespace dlsim::sim {

class FairSharing final : public TransferScheduler, private EventHandler {
 public:
  enum class Recompute { incremental, full };
  FairSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink,
              Recompute mode = Recompute::incremental);
  void add(TransferId id, NodeId src, NodeId dst, double bits) override;
  void rates_changed() override;
  void reserve(std::size_t transfers) override;

  /// Current rate of an active transfer (bits/s; 0 until the next solve ran).
  double rate(TransferId id) const { return flows_[id].rate; }
  /// Finish time of an active transfer as planned by the last solve.
  SimTime finish(TransferId id) const { return flows_[id].finish; }
  std::size_t active_flows() const { return active_; }
  /// Flows whose rate was recomputed so far (the work the incremental mode saves).
  std::uint64_t flows_solved() const { return flows_solved_; }

 private:
  // The resources a flow crosses: egress, ingress, link (-1: never binds). Kept apart
  // from the rest of its record: the solver's passes over a million flows read these
  // alone, and 12 bytes a flow take far fewer cache lines than the whole record.
  using Route = std::array<int, 3>;
  struct Flow {
    int position[3] = {0, 0, 0};  // index of this flow in each resource's user list
    std::uint32_t generation = 0;
    double remaining = 0;  // bits not yet transmitted at `since`
    double rate = 0;       // bits per second
    SimTime since{};
    SimTime finish = SimTime::max();
    std::uint64_t order = 0;  // start order: simultaneous ends are reported in it
    bool active = false;
  };

  // lv08 only: a flow's max-min weight is 1 / penalty, and its value has a bound (0: none).
  // Apart from the flow record, so that under cm02 (penalty 1, no bound) a record is 64
  // bytes: two flows per node in a million-worker round.
  struct Weighting {
    double penalty = 1;
    double bound = 0;
  };

  struct Due {
    SimTime finish;
    TransferId id;
    std::uint32_t generation;
  };

  void on_event(std::uint64_t kind) override;
  void request_solve();
  void solve();
  void solve_component(std::size_t first_flow, std::size_t first_resource);
  void fill_by_scanning(std::span<const int> resources, std::span<const TransferId> flows);
  void fill_with_heap(std::span<const int> resources, std::span<const TransferId> flows);
  void wake();
  void arm();
  void compact_due();
  void attach(TransferId id);
  void detach(TransferId id);
  int link_resource(NodeId src, NodeId dst);
  void find_whether_links_bind();
  void set_penalty_and_bound(TransferId id, NodeId src, NodeId dst);
  double penalty(TransferId id) const { return weighted_ ? weightings_[id].penalty : 1.0; }
  double bound(TransferId id) const { return weighted_ ? weightings_[id].bound : 0.0; }
  void apply(std::uint32_t k, TransferId id);
  void sort_round(std::span<const TransferId> flows);
  void mark(int resource);
  // A flow's record, a few flows ahead in a pass over a component's flows (breadth-first
  // order, not the records' transfer-id order): with a million flows each would miss.
  static constexpr std::size_t kFlowsAhead = 8;
  void prefetch_flow(TransferId id) const { prefetch_lines(flows_.data() + id, sizeof(Flow)); }

  Engine& engine_;
  const NetworkConfig& config_;
  TransferSink& sink_;
  Recompute mode_;
  bool weighted_;                  // network.model lv08: weights, bounds and the bandwidth factor
  double rate_factor_;             // rate = rate_factor_ · max-min value (1 under cm02)
  bool links_never_bind_ = false;  // every link is at least as fast as its ports
  std::vector<Flow> flows_;        // indexed by TransferId
  std::vector<Route> routes_;      // indexed by TransferId
  std::vector<Weighting> weightings_;  // indexed by TransferId; empty unless weighted_
  std::vector<double> capacity_;       // egress 0..n-1, ingress n..2n-1, then links
  // Per resource: its active flows. Two inline (a port of a ring gossip carries two):
  // a million nodes' ports then need no allocation of their own.
  std::vector<boost::container::small_vector<TransferId, 2>> users_;
  std::unordered_map<std::uint64_t, int> link_ids_;  // links slower than their ports
  std::vector<Due> due_;          // min-heap of planned finishes (stale entries skipped)
  std::vector<Due> expired_;      // scratch for wake()
  std::vector<SimTime> wakeups_;  // min-heap of scheduled wake-up events
  std::vector<int> dirty_;        // resources to solve, in the order first marked
  std::vector<char> marked_;      // per resource: in dirty_ already
  std::uint64_t next_order_ = 0;
  std::uint64_t flows_solved_ = 0;
  std::size_t active_ = 0;
  bool solve_pending_ = false;
  // Scratch for solve(), reused so that steady state allocates nothing.
  std::uint32_t stamp_ = 0;
  std::vector<std::uint32_t> resource_stamp_, flow_stamp_;
  std::vector<int> component_resources_;
  std::vector<TransferId> component_flows_;
  std::vector<double> left_, new_rate_;
  std::vector<int> count_;                  // unfixed flows per resource
  std::vector<double> weight_sum_;          // their total weight (= count_ under cm02)
  std::vector<std::uint32_t> round_fixed_;  // component indices of the flows fixed this round
  struct BoundLevel {  // a bounded flow reaches its bound at θ = bound · penalty
    double level;
    std::uint32_t k;
  };
  std::vector<BoundLevel> bound_levels_;
  std::vector<char> saturated_;
  std::vector<std::uint32_t> unfixed_;
  struct ShareEntry {  // a resource's fair share max(left, 0)/count when pushed
    double share;
    int resource;
    std::uint32_t version;
  };
  std::vector<ShareEntry> share_heap_;
  std::vector<std::uint32_t> resource_version_, component_index_;
  std::vector<std::uint64_t> round_mark_;
  std::uint64_t round_ = 0;
  std::vector<int> saturated_list_, changed_;
  std::vector<std::pair<std::uint64_t, TransferId>> done_;  // (start order, id)
  // Scratch of for_each_by_dense_key (wake()).
  std::vector<std::uint32_t> slots_;
};

}  // namespace dlsim::sim
