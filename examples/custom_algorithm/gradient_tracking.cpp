// Gradient tracking (DIGing), added to dlsim from this one file: the registration (name,
// keys, facts, checks, launch), the per-node math and the process that sequences it.
// Nothing else in the repository names this algorithm; CMakeLists.txt here builds a
// dlsim that includes it (dlsim-gradient-tracking) and its test.
//
// Nedić, Olshevsky, Shi, "Achieving Geometric Convergence for Distributed Optimization
// over Time-Varying Graphs", SIAM J. Optim. 27(4), 2017 (DIGing), eq. (3):
//   x_i^{k+1} = Σ_j w_ij x_j^k − α y_i^k
//   y_i^{k+1} = Σ_j w_ij y_j^k + ∇f_i(x_i^{k+1}) − ∇f_i(x_i^k),   y_i^0 = ∇f_i(x_i^0)
// y_i tracks the average gradient (1/n) Σ_j ∇f_j(x_j): with a doubly stochastic W,
// Σ_i y_i = Σ_i ∇f_i(x_i) at every k, so at a fixed point every x_i is the minimizer of
// (1/n) Σ_i f_i. With a constant step and full local gradients it converges linearly to
// the exact optimum, where D-PSGD stalls at a bias that grows with the heterogeneity of
// the f_i.
//
// Messages: every round each node sends one message [x_i; y_i] (2d values, tag k) to its
// neighbours in IEEE binary64, charged 64 bits per value: exact convergence would stall
// at fp32's rounding otherwise (with fp32 messages the loss stops at a relative error of
// about 1e-11 and the model at about 1e-6). The compressor must be `none`. Scenario: `"algorithm":
// {"kind": "gradient-tracking", "step_size": α, "batch_size": B}` (B at least the shard size gives
// the full local gradient, which exact convergence needs).
#include <cstring>
#include <memory>
#include <vector>

#include "sim/algorithms/algorithms.hpp"
#include "sim/runtime/worker_math.hpp"
#include "sim/scenario/algorithm_registry.hpp"
#include "sim/scenario/input_error.hpp"
#include "topologies/schedule.hpp"

namespace dlsim::examples {

using namespace dlsim::sim;
using models::Vector;

/// The per-node rule, without the engine: mix what the neighbours sent, step, track.
class GradientTrackingNode {
 public:
  /// x0 and its gradient g0 (so y starts as g0).
  GradientTrackingNode(Vector x0, const Vector& g0) : x_(std::move(x0)), y_(g0), g_old_(g0) {}

  const Vector& x() const { return x_; }
  const Vector& y() const { return y_; }

  /// Starts round k's mixing with this node's own terms: w_ii x_i and w_ii y_i.
  void begin_mix(double self_weight) {
    mixed_x_ = self_weight * x_;
    mixed_y_ = self_weight * y_;
  }
  /// Adds a neighbour's x_j and y_j with weight w_ij.
  template <class X, class Y>
  void mix(double weight, const Eigen::MatrixBase<X>& x_j, const Eigen::MatrixBase<Y>& y_j) {
    mixed_x_ += weight * x_j;
    mixed_y_ += weight * y_j;
  }
  /// x ← Σ w x − α y (y of round k); then, given ∇f_i(x_new) by `gradient`,
  /// y ← Σ w y + ∇f_i(x_new) − ∇f_i(x_old).
  template <class Gradient>
  void step(double alpha, Gradient&& gradient) {
    x_ = mixed_x_ - alpha * y_;
    gradient(x_, g_new_);
    y_ = mixed_y_ + g_new_ - g_old_;
    g_old_.swap(g_new_);
  }

 private:
  Vector x_, y_, g_old_, g_new_, mixed_x_, mixed_y_;
};

namespace {

constexpr const char* kName = "gradient-tracking";

// v as IEEE binary64 on the wire; `dimension` values charged (models without math send
// sizes only).
Payload encode_fp64(const Vector& v, models::Index dimension) {
  auto e = std::make_shared<models::Encoded>();
  e->dimension = dimension;
  e->bits = 64 * std::uint64_t(dimension);
  if (v.size() > 0) {
    e->bytes.resize(sizeof(double) * std::size_t(v.size()));
    std::memcpy(e->bytes.data(), v.data(), e->bytes.size());
  }
  return e;
}

void decode_fp64(const Message& m, Vector& out) {
  out.resize(Eigen::Index(m.payload->bytes.size() / sizeof(double)));
  if (out.size() > 0) std::memcpy(out.data(), m.payload->bytes.data(), m.payload->bytes.size());
}

Task<void> worker(Training& t, int id, std::shared_ptr<const topo::GraphSchedule> graph) {
  Node& me = t.nodes[id];
  WorkerMath math(t, id);
  const double alpha = t.scenario.algorithm.step_size;
  std::unique_ptr<GradientTrackingNode> node;
  co_await me.compute([&] {  // y_i^0 = ∇f_i(x_i^0)
    Vector g;
    const models::ComputeCost cost = math.gradient(t.initial_for(id), g);
    node = std::make_unique<GradientTrackingNode>(t.initial_for(id), g);
    return cost;
  });
  const models::Index d = t.objective.parameters();
  Vector both(t.objective.has_math() ? 2 * d : 0), received;
  for (std::int64_t k = 0; k < t.recorder.iteration_limit(); ++k) {
    const topo::Neighborhood nb = graph->neighborhood(id, k);
    const std::vector<NodeId> out(nb.out.begin(), nb.out.end());
    const auto tag = std::uint64_t(k);
    if (t.objective.has_math()) both << node->x(), node->y();
    co_await me.broadcast(out, tag, encode_fp64(both, 2 * d));
    node->begin_mix(nb.self_weight);
    for (std::size_t j = 0; j < nb.in.size(); ++j) {
      const Message m = co_await me.recv(nb.in[j], tag);
      decode_fp64(m, received);
      const Eigen::Index half = received.size() / 2;
      node->mix(nb.in_weights[j], received.head(half), received.tail(half));
    }
    co_await me.compute([&] {
      models::ComputeCost cost;
      node->step(alpha, [&](const Vector& x, Vector& g) { cost = math.gradient(x, g); });
      return cost;
    });
    t.recorder.deposit(id, k + 1, node->x());
  }
}

void launch(Engine& engine, Training& t) {
  const auto graph = communication_graph(t.scenario);
  for (int i = 0; i < t.workers(); ++i) engine.spawn(worker(t, i, graph));
}

// DIGing's step is plain: no momentum, weight decay or step schedule.
void check(const Scenario& s) {
  const AlgorithmSpec& a = s.algorithm;
  if (a.momentum != 0.0)
    throw InputError("algorithm.momentum", "gradient tracking takes no momentum; must be 0");
  if (a.weight_decay != 0.0)
    throw InputError("algorithm.weight_decay",
                     "gradient tracking takes no weight decay; use model.l2");
  if (a.schedule.kind != "constant" || a.schedule.warmup != 0)
    throw InputError("algorithm.schedule", "gradient tracking uses the constant step_size");
}

const AlgorithmRegistration registered{{
    .name = kName,
    .doc = "Gradient tracking, DIGing (Nedic, Olshevsky, Shi 2017): x <- W x - step_size y, "
           "y <- W y + grad f_i(x_new) - grad f_i(x_old); exact convergence with a constant "
           "step (examples/custom_algorithm).",
    .keys = {},
    .facts = {.decentralized = true,
              .directed_graphs = true,  // any graph whose weights are doubly stochastic
              .weights = WeightsNeeded::doubly_stochastic,
              .compressed_messages = false,
              .min_workers = 2,
              // x, y, g_old, g_new, their mixes, a gradient, and (x, y) sent and received
              .memory = {.worker_vectors = 11}},
    .check = check,
    .launch = launch,
}};

}  // namespace
}  // namespace dlsim::examples
