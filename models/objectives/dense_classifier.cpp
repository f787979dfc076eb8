// DenseClassifier: forward and backward passes as GEMMs over the gathered batch
// (formulas in dense_classifier.hpp). Full-data losses run in blocks of rows so the
// hidden activations of a 60,000-sample set never exist all at once.
#include "models/objectives/dense_classifier.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "models/cpu/dense_product.hpp"
#include "models/cpu/prefetch.hpp"
#include "models/data/labels.hpp"
#include "models/objectives/batch.hpp"
#include "models/objectives/counts.hpp"

namespace dlsim::models {

namespace {

constexpr const char* kDenseClassifierName = "dense classifier";
constexpr Index kDenseEvalBlock = 1024;  // rows per block of full-data evaluations

using BiasMap = Eigen::Map<const Vector>;

// Per-thread scratch: gradients on equal-sized batches reuse the storage, and
// concurrent workers never share it.
struct DenseClassifierScratch {
  Matrix x;                   // the gathered batch
  Vector y;                   // its labels
  std::vector<Matrix> h;      // layer outputs (the last: logits, then P − Y)
  std::vector<Matrix> delta;  // G_l of the hidden layers
};
DenseClassifierScratch& dense_classifier_scratch() {
  thread_local DenseClassifierScratch s;
  return s;
}

// A block of byte-coded rows, widened four at a time inside the first layer's product
// (no block of doubles written out and read back; the same values, so the same bits).
class CodedRows final : public dense_product::RowSource {
 public:
  CodedRows(const FeatureMatrix& features, Index first, Index count)
      : RowSource(count, features.cols()), features_(features), first_(first) {}
  void fill(Index first, Index count, double* to) const override {
    features_.widen_rows(first_ + first, count, to);
    // The rows two calls ahead, asked for now: the codes are read once, in order, and
    // the hardware's prefetcher stops at every 4 KiB page.
    const Index ahead = first_ + first + 2 * count;
    const Index n = std::min(count, features_.rows() - ahead);
    if (n > 0)
      prefetch_bytes(
          static_cast<const std::uint8_t*>(features_.storage_data()) + ahead * features_.cols(),
          std::size_t(n * features_.cols()));
  }

 private:
  const FeatureMatrix& features_;
  Index first_;
};

}  // namespace

DenseClassifier::DenseClassifier(Index features, std::vector<Index> hidden, int classes,
                                 Activation activation, Regularization reg, bool bias,
                                 InitOptions init)
    : features_(features),
      classes_(classes),
      activation_(activation),
      reg_(reg),
      bias_(bias),
      init_(init) {
  if (features < 1) throw std::invalid_argument("dense classifier: features must be >= 1");
  if (classes < 2) throw std::invalid_argument("dense classifier: needs at least 2 classes");
  if (reg.l2 < 0 || reg.l1 < 0)
    throw std::invalid_argument("dense classifier: l2, l1 must be >= 0");
  check_init(init, kDenseClassifierName);
  Index in = features;
  hidden.push_back(classes);
  for (std::size_t l = 0; l < hidden.size(); ++l) {
    if (hidden[l] < 1) throw std::invalid_argument("dense classifier: layer widths must be >= 1");
    Layer layer;
    layer.in = in;
    layer.out = hidden[l];
    layer.weights = dimension_;
    layer.bias = dimension_ + in * layer.out;
    layer.hidden = l + 1 < hidden.size();
    dimension_ = layer.bias + (bias ? layer.out : 0);
    layers_.push_back(layer);
    in = layer.out;
  }
  std::vector<WeightSegment> weights;
  for (const Layer& l : layers_) weights.push_back({l.weights, l.in * l.out});
  penalty_ = WeightPenalty(reg, std::move(weights));
}

std::int64_t DenseClassifier::parameter_count(std::int64_t features,
                                              const std::vector<Index>& hidden,
                                              std::int64_t classes, bool bias) {
  std::int64_t count = 0, in = features;
  std::vector<Index> widths = hidden;
  widths.push_back(classes);
  for (const Index out : widths) {
    count = saturating_add(count, saturating_mul(in, out));
    if (bias) count = saturating_add(count, out);
    in = out;
  }
  return count;
}

double DenseClassifier::thread_bytes(std::int64_t features, const std::vector<Index>& hidden,
                                     std::int64_t classes, std::int64_t batch) {
  double widths = double(classes);
  for (const Index h : hidden) widths += double(h);
  const double rows = double(std::max<std::int64_t>(batch, kDenseEvalBlock));
  // x and y of the batch; h and delta per layer (Eigen reallocates on every size change,
  // so the last size used counts: gradients and evaluation blocks alternate).
  return 8 * (double(batch) * (double(features) + 1) + 2 * rows * widths);
}

Index DenseClassifier::coded_rows_widened() {
  return avx512_available() ? dense_product::kSourceRows : kDenseEvalBlock;
}

std::vector<Index> DenseClassifier::tensor_sizes() const {
  std::vector<Index> sizes;
  for (const Layer& l : layers_) {
    sizes.push_back(l.in * l.out);
    if (bias_) sizes.push_back(l.out);
  }
  return sizes;
}

void DenseClassifier::check(const Vector& w, const Dataset& data) const {
  check_features(data, features_, kDenseClassifierName);
  check_size(w, dimension_, kDenseClassifierName);
}

const Matrix& DenseClassifier::forward(const Vector& w, const Eigen::Ref<const Matrix>& x) const {
  DenseClassifierScratch& s = dense_classifier_scratch();
  s.h.resize(layers_.size());
  // h_0 = input · weights, Eigen's bits (dense_product.hpp).
  dense_product::multiply(x, w.data() + layers_[0].weights, layers_[0].out, s.h[0]);
  return forward_from_first_product(w);
}

const Matrix& DenseClassifier::forward(const Vector& w, const dense_product::RowSource& x) const {
  DenseClassifierScratch& s = dense_classifier_scratch();
  s.h.resize(layers_.size());
  dense_product::multiply(x, w.data() + layers_[0].weights, layers_[0].out, s.h[0]);
  return forward_from_first_product(w);
}

const Matrix& DenseClassifier::forward_from_first_product(const Vector& w) const {
  DenseClassifierScratch& s = dense_classifier_scratch();
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const Layer& layer = layers_[l];
    Matrix& out = s.h[l];
    if (l > 0) dense_product::multiply(s.h[l - 1], w.data() + layer.weights, layer.out, out);
    if (bias_) out.rowwise() += BiasMap(w.data() + layer.bias, layer.out).transpose();
    if (!layer.hidden) continue;
    if (activation_ == Activation::relu)
      out = out.cwiseMax(0.0);
    else
      out = out.array().tanh().matrix();
  }
  return s.h.back();
}

std::optional<LossSums> DenseClassifier::data_sums(const Vector& w, const Dataset& data,
                                                   Index begin, Index end) const {
  check(w, data);
  check_row_range(begin, end, data.size(), kDenseClassifierName);
  double cross_entropy = 0, correct = 0;
  // The logits z of the rows from `first` on: their losses and hits.
  const auto add_block = [&](Index first, const Matrix& z) {
    const Vector max = z.rowwise().maxCoeff();
    const Vector log_sum_exp =
        max.array() + (z.colwise() - max).array().exp().rowwise().sum().log();
    for (Index i = 0; i < z.rows(); ++i) {
      const int label = class_index(data.labels(first + i), classes_, kDenseClassifierName);
      cross_entropy += log_sum_exp(i) - z(i, label);
      Index predicted = 0;
      z.row(i).maxCoeff(&predicted);
      correct += predicted == label ? 1.0 : 0.0;
    }
  };
  for (Index r0 = begin; r0 < end; r0 += kDenseEvalBlock) {
    const Index block = std::min(kDenseEvalBlock, end - r0);
    if (data.features.is_coded()) {
      add_block(r0, forward(w, CodedRows(data.features, r0, block)));
      continue;
    }
    data.features.for_row_blocks(
        r0, block, [&](Index offset, const auto& x) { add_block(r0 + offset, forward(w, x)); });
  }
  return LossSums{cross_entropy, correct};
}

double DenseClassifier::regularizer(const Vector& w) const {
  return penalty_.value(w);
}

void DenseClassifier::gradient(const Vector& w, const Dataset& data, std::span<const Index> rows,
                               Vector& grad) const {
  check(w, data);
  check_batch(rows, data.size(), kDenseClassifierName);
  DenseClassifierScratch& s = dense_classifier_scratch();
  gather_batch(data, rows, s.x, s.y);
  const Index b = Index(rows.size());
  forward(w, s.x);

  // Top layer: G = (softmax(Z) − Y)/b, in place on the logits.
  Matrix& g_top = s.h.back();
  const Vector max = g_top.rowwise().maxCoeff();
  g_top.colwise() -= max;
  g_top = g_top.array().exp().matrix();
  const Vector sum = g_top.rowwise().sum();
  g_top.array().colwise() /= sum.array();
  for (Index i = 0; i < b; ++i)
    g_top(i, class_index(s.y(i), classes_, kDenseClassifierName)) -= 1.0;
  g_top *= 1.0 / double(b);

  grad.resize(dimension_);
  s.delta.resize(layers_.size());
  const Matrix* g = &g_top;
  for (std::size_t l = layers_.size(); l-- > 0;) {
    const Layer& layer = layers_[l];
    const Matrix& input = l == 0 ? s.x : s.h[l - 1];
    // ∇W = inputᵀ · G, Eigen's bits (dense_product.hpp).
    dense_product::multiply_transposed(input, *g, grad.data() + layer.weights);
    if (bias_)
      Eigen::Map<Vector>(grad.data() + layer.bias, layer.out) = g->colwise().sum().transpose();
    if (l == 0) break;
    // G_{l−1} = (G_l W_lᵀ) ⊙ act'(H_{l−1}).
    Matrix& below = s.delta[l - 1];
    dense_product::multiply_by_transpose(*g, w.data() + layer.weights, layer.in, below);
    if (activation_ == Activation::relu)
      below.array() *= (input.array() > 0.0).cast<double>();
    else
      below.array() *= 1.0 - input.array().square();
    g = &below;
  }
  penalty_.add_gradient(w, grad);  // + λ2 W_l
}

ComputeCost DenseClassifier::gradient_cost(Index batch) const {
  const double b = double(batch), c = double(classes_);
  double flops = 5 * b * c + b + b * c;  // softmax, P − Y, ·1/b
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    const double n = double(layers_[l].in), m = double(layers_[l].out);
    flops += 2 * b * n * m + 2 * b * n * m;  // forward GEMM, ∇W GEMM
    if (bias_) flops += b * m + b * m;       // + b, ∇b
    if (layers_[l].hidden) flops += b * m;   // activation
    if (l > 0) flops += 2 * b * n * m + (activation_ == Activation::relu ? 2 : 3) * b * n;
    if (reg_.l2 != 0) flops += 2 * n * m;
  }
  return {flops, 0.0};
}

void DenseClassifier::prox(Vector& w, double step) const {
  check_size(w, dimension_, kDenseClassifierName);
  penalty_.prox(w, step);
}

Vector DenseClassifier::initial_point(std::mt19937_64& rng) const {
  Vector w = Vector::Zero(dimension_);
  for (const Layer& l : layers_) {
    if (init_.kind == InitOptions::Kind::torch) {
      // PyTorch's nn.Linear: W, then b, on U(±1/√fan_in).
      fill_uniform(w.segment(l.weights, l.in * l.out), torch_bound(l.in), rng);
      if (bias_) fill_uniform(w.segment(l.bias, l.out), torch_bound(l.in), rng);
    } else {
      fill_normal(w.segment(l.weights, l.in * l.out), init_std(init_, l.in, l.out), rng);
    }
  }
  return w;
}

}  // namespace dlsim::models
