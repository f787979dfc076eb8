// ConvNet: precision dispatch, data-set evaluation in blocks, init and regularizers
// (conv_net.hpp).
#include "models/objectives/cnn/conv_net.hpp"

#include <algorithm>
#include <cmath>

#include "models/data/labels.hpp"
#include "models/objectives/batch.hpp"

namespace dlsim::models {

namespace {

constexpr const char* kConvNetName = "convolutional network";
constexpr Index kConvEvalBlock = 500;  // rows per block of full-data evaluations

template <class T>
struct Scratch {
  cnn::NetworkScratch<T> net;
  Eigen::Matrix<T, Eigen::Dynamic, 1> params, grad;
  Matrix x;
  std::vector<int> labels;
};
template <class T>
Scratch<T>& scratch() {
  thread_local Scratch<T> s;
  return s;
}

// Σ −log softmax(z_i)[y_i] and Σ [argmax z_i = y_i] over the rows of a logit block.
template <class T>
std::pair<double, double> block_sums(const cnn::MatView<T>& logits, const Vector& labels, Index r0,
                                     int classes) {
  double cross_entropy = 0, correct = 0;
  const Eigen::MatrixXd z = logits.template cast<double>();
  for (Index i = 0; i < z.rows(); ++i) {
    const int label = class_index(labels(r0 + i), classes, kConvNetName);
    const double max = z.row(i).maxCoeff();
    cross_entropy += max + std::log((z.row(i).array() - max).exp().sum()) - z(i, label);
    Index predicted = 0;
    z.row(i).maxCoeff(&predicted);
    correct += predicted == label ? 1.0 : 0.0;
  }
  return {cross_entropy, correct};
}

template <class T>
std::pair<double, double> evaluate(const cnn::Network<T>& net, const Vector& w, const Dataset& data,
                                   Index begin, Index end, int classes) {
  Scratch<T>& s = scratch<T>();
  s.params = w.cast<T>();
  double cross_entropy = 0, correct = 0;
  for (Index r0 = begin; r0 < end; r0 += kConvEvalBlock) {
    const Index rows = std::min(kConvEvalBlock, end - r0);
    // One call, with the block as it is or (float32 storage) converted whole.
    data.features.for_row_blocks(
        r0, rows,
        [&](Index, const auto& x) {
          const auto& logits = net.forward(s.params.data(), x, s.net);
          const auto [ce, ok] = block_sums<T>(logits, data.labels, r0, classes);
          cross_entropy += ce;
          correct += ok;
        },
        rows);
  }
  return {cross_entropy, correct};
}

// Per sample, in values: the scratch of one gradient and of one forward pass (an
// evaluation's), each on one blank sample.
struct SampleScratch {
  Index gradient = 0, forward = 0;
};

template <class T>
SampleScratch probe_scratch(const cnn::Network<T>& net) {
  const Eigen::Matrix<T, Eigen::Dynamic, 1> params =
      Eigen::Matrix<T, Eigen::Dynamic, 1>::Zero(net.parameter_count());
  Eigen::Matrix<T, Eigen::Dynamic, 1> grad(net.parameter_count());
  const Matrix blank = Matrix::Zero(1, net.input_shape().size());
  cnn::NetworkScratch<T> gradient, forward;
  net.gradient(params.data(), blank, {0}, grad.data(), gradient);
  net.forward(params.data(), blank, forward);
  return {cnn::scratch_values(gradient), cnn::scratch_values(forward)};
}

// Above this many activation values per sample the probe itself would take gigabytes:
// the layers' outputs times 4 (a gradient) and 3 (a forward pass) stand for the scratch
// instead (a network that large is refused anyway).
constexpr Index kLargestProbe = 10'000'000;

template <class T>
double thread_bytes_in(const cnn::Architecture& architecture, Index batch) {
  const cnn::Network<T> net = cnn::build_network<T>(architecture);
  Index outputs = 0;
  for (const auto& layer : net.layers()) outputs += layer->output_shape().size();
  const SampleScratch per_sample =
      outputs > kLargestProbe ? SampleScratch{4 * outputs, 3 * outputs} : probe_scratch<T>(net);
  const double input = double(architecture.input.size());
  // A thread's buffers hold a gradient's batch and, while it evaluates, an evaluation
  // block's forward pass: with one thread these are two threads (the simulation's and the
  // metrics thread, docs/design.md §5), in a pool one thread may do both, its backward
  // buffers still sized for the batch while the forward ones hold the block. Then the
  // gathered batch (doubles) and the parameters and gradient cast to T.
  return double(sizeof(T)) * (double(batch) * double(per_sample.gradient) +
                              double(kConvEvalBlock) * double(per_sample.forward) +
                              2 * double(net.parameter_count())) +
         8 * double(batch) * input;
}

template <class T>
void batch_gradient(const cnn::Network<T>& net, const Vector& w, const Dataset& data,
                    std::span<const Index> rows, int classes, Vector& grad) {
  Scratch<T>& s = scratch<T>();
  data.features.gather(rows, s.x);
  s.labels.resize(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    s.labels[i] = class_index(data.labels(rows[i]), classes, kConvNetName);
  if constexpr (std::is_same_v<T, double>) {
    grad.resize(w.size());
    net.gradient(w.data(), s.x, s.labels, grad.data(), s.net);
  } else {
    s.params = w.cast<T>();
    s.grad.resize(w.size());
    net.gradient(s.params.data(), s.x, s.labels, s.grad.data(), s.net);
    grad = s.grad.template cast<double>();
  }
}

}  // namespace

ConvNet::ConvNet(cnn::Architecture architecture, Regularization reg, InitOptions init,
                 Precision precision)
    : architecture_(architecture),
      reg_(reg),
      init_(init),
      precision_(precision),
      net_float_(cnn::build_network<float>(architecture)),
      net_double_(cnn::build_network<double>(architecture)),
      tensors_(net_double_.tensors()),
      dimension_(net_double_.parameter_count()) {
  if (reg.l2 < 0 || reg.l1 < 0)
    throw std::invalid_argument("convolutional network: l2, l1 must be >= 0");
  check_init(init, kConvNetName);
  std::vector<WeightSegment> weights;
  Index offset = 0;
  for (const auto& t : tensors_) {
    if (t.weight) weights.push_back({offset, t.size});
    offset += t.size;
  }
  penalty_ = WeightPenalty(reg, std::move(weights));
}

double ConvNet::thread_bytes(const cnn::Architecture& architecture, Precision precision,
                             Index batch) {
  return precision == Precision::double_ ? thread_bytes_in<double>(architecture, batch)
                                         : thread_bytes_in<float>(architecture, batch);
}

std::vector<Index> ConvNet::tensor_sizes() const {
  std::vector<Index> sizes;
  for (const auto& t : tensors_) sizes.push_back(t.size);
  return sizes;
}

void ConvNet::check(const Vector& w, const Dataset& data) const {
  check_features(data, architecture_.input.size(), kConvNetName);
  check_size(w, dimension_, kConvNetName);
}

std::optional<LossSums> ConvNet::data_sums(const Vector& w, const Dataset& data, Index begin,
                                           Index end) const {
  check(w, data);
  check_row_range(begin, end, data.size(), kConvNetName);
  const auto [cross_entropy, correct] =
      precision_ == Precision::single
          ? evaluate(net_float_, w, data, begin, end, architecture_.classes)
          : evaluate(net_double_, w, data, begin, end, architecture_.classes);
  return LossSums{cross_entropy, correct};
}

double ConvNet::regularizer(const Vector& w) const {
  return penalty_.value(w);
}

void ConvNet::gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                       Vector& grad) const {
  check(w, data);
  check_batch(rows, data.size(), kConvNetName);
  if (precision_ == Precision::single)
    batch_gradient(net_float_, w, data, rows, architecture_.classes, grad);
  else
    batch_gradient(net_double_, w, data, rows, architecture_.classes, grad);
  penalty_.add_gradient(w, grad);
}

ComputeCost ConvNet::gradient_cost(Index batch) const {
  double flops = net_double_.gradient_flops(batch);
  if (reg_.l2 != 0)
    for (const auto& t : tensors_)
      if (t.weight) flops += 2 * double(t.size);
  return {flops, 0.0};
}

void ConvNet::prox(Vector& w, double step) const {
  check_size(w, dimension_, kConvNetName);
  penalty_.prox(w, step);
}

Vector ConvNet::initial_point(std::mt19937_64& rng) const {
  Vector w = Vector::Zero(dimension_);
  Index offset = 0;
  for (const auto& t : tensors_) {
    if (init_.kind == InitOptions::Kind::torch && t.fan_in > 0) {
      // PyTorch draws weights and biases alike, on the layer's fan-in, unscaled.
      fill_uniform(w.segment(offset, t.size), torch_bound(t.fan_in), rng);
    } else if (t.weight) {
      double std = init_std(init_, t.fan_in, t.fan_out);
      if (init_.kind == InitOptions::Kind::he || init_.kind == InitOptions::Kind::xavier)
        std *= t.init_scale;
      fill_normal(w.segment(offset, t.size), std, rng);
    } else if (t.constant != 0.0) {
      w.segment(offset, t.size).setConstant(t.constant);
    }
    offset += t.size;
  }
  return w;
}

}  // namespace dlsim::models
