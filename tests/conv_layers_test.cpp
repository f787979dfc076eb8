// Convolutional layers against independent truth: every layer's parameter and input
// gradients versus central finite differences of φ = <R, layer(X)> (R a fixed random
// upstream gradient) in double on small shapes; the tie rule of max pooling; the layout
// (one strided im2col view per tap) versus a direct, loop-based convolution; and each
// layer's FLOP count versus a hand count.
#include <catch2/catch.hpp>

#include <random>
#include <utility>
#include <vector>

#include "models/objectives/cnn/activation.hpp"
#include "models/objectives/cnn/conv2d.hpp"
#include "models/objectives/cnn/dense.hpp"
#include "models/objectives/cnn/global_avg_pool.hpp"
#include "models/objectives/cnn/group_norm.hpp"
#include "models/objectives/cnn/pool2d.hpp"
#include "models/objectives/cnn/residual_block.hpp"

using namespace dlsim::models;
using namespace dlsim::models::cnn;

namespace {

Eigen::VectorXd random_values(Index n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  Eigen::VectorXd v(n);
  for (Index k = 0; k < n; ++k) v(k) = normal(rng);
  return v;
}

Tensor<double> random_tensor(Shape shape, Index batch, std::uint64_t seed) {
  Tensor<double> t;
  t.resize(shape, batch);
  t.data = Eigen::Map<const Mat<double>>(random_values(t.data.size(), seed).data(), t.data.rows(),
                                         t.data.cols());
  return t;
}

// φ(θ, X) = <R, layer(X; θ)>.
double phi(const Layer<double>& layer, const Eigen::VectorXd& params, const Tensor<double>& x,
           const Mat<double>& r) {
  Tensor<double> out;
  Workspace<double> ws;
  layer.forward(params.data(), x, out, ws);
  return (out.data.array() * r.array()).sum();
}

// Analytic versus central differences, for the parameters and the input.
void check_layer_gradients(const Layer<double>& layer, Index batch, std::uint64_t seed,
                           double tolerance = 1e-7) {
  const Eigen::VectorXd params = random_values(layer.parameter_count(), seed) * 0.5;
  const Tensor<double> x = random_tensor(layer.input_shape(), batch, seed + 1);
  Tensor<double> out;
  Workspace<double> ws;
  layer.forward(params.data(), x, out, ws);
  REQUIRE(out.shape == layer.output_shape());
  REQUIRE(out.data.rows() == layer.output_shape().pixels() * batch);
  Tensor<double> r = random_tensor(layer.output_shape(), batch, seed + 2);
  Tensor<double> grad_in;
  Eigen::VectorXd grad_params = Eigen::VectorXd::Constant(params.size(), 99.0);
  layer.backward(params.data(), x, out, r, &grad_in, grad_params.data(), ws);

  const double h = 1e-6;
  Eigen::VectorXd numeric_params(params.size());
  for (Index k = 0; k < params.size(); ++k) {
    Eigen::VectorXd plus = params, minus = params;
    plus(k) += h;
    minus(k) -= h;
    numeric_params(k) = (phi(layer, plus, x, r.data) - phi(layer, minus, x, r.data)) / (2 * h);
  }
  Mat<double> numeric_in(x.data.rows(), x.data.cols());
  for (Index k = 0; k < x.data.size(); ++k) {
    Tensor<double> plus = x, minus = x;
    plus.data.data()[k] += h;
    minus.data.data()[k] -= h;
    numeric_in.data()[k] =
        (phi(layer, params, plus, r.data) - phi(layer, params, minus, r.data)) / (2 * h);
  }
  if (params.size() > 0)
    CHECK((grad_params - numeric_params).norm() / numeric_params.norm() < tolerance);
  CHECK((grad_in.data - numeric_in).norm() / numeric_in.norm() < tolerance);

  // Without the input gradient the parameter gradient is the same.
  Eigen::VectorXd again = Eigen::VectorXd::Zero(params.size());
  layer.backward(params.data(), x, out, r, nullptr, again.data(), ws);
  CHECK(again == grad_params);
}

}  // namespace

TEST_CASE("conv2d: gradients match finite differences (padding, stride, channels)") {
  struct Case {
    Shape in;
    ConvOptions o;
  };
  for (const Case& c : {Case{{1, 6, 6}, {1, 2, 3, 1, 0}}, Case{{2, 7, 5}, {2, 3, 3, 2, 1}},
                        Case{{3, 6, 6}, {3, 2, 5, 1, 2}}, Case{{2, 6, 6}, {2, 3, 1, 2, 0}},
                        Case{{1, 5, 5}, {1, 1, 2, 3, 1}}}) {
    INFO("in " << c.in.channels << "x" << c.in.height << "x" << c.in.width << " k " << c.o.kernel
               << " s " << c.o.stride << " p " << c.o.padding);
    check_layer_gradients(Conv2d<double>(c.in, c.o), 3, 7);
  }
}

TEST_CASE("conv2d: forward equals a direct loop convolution; output size formula") {
  const Shape in{2, 7, 6};
  const ConvOptions o{2, 3, 3, 2, 1};
  const Conv2d<double> conv(in, o);
  CHECK(conv.output_shape() == Shape{3, (7 + 2 - 3) / 2 + 1, (6 + 2 - 3) / 2 + 1});
  const Index batch = 2;
  const Eigen::VectorXd params = random_values(conv.parameter_count(), 3);
  const Tensor<double> x = random_tensor(in, batch, 4);
  Tensor<double> out;
  Workspace<double> ws;
  conv.forward(params.data(), x, out, ws);
  const Shape os = conv.output_shape();
  const auto at = [&](const Tensor<double>& t, Index c, Index b, Index y, Index xx) {
    return t.data.data()[((c * t.batch + b) * t.shape.height + y) * t.shape.width + xx];
  };
  double worst = 0;
  for (Index co = 0; co < 3; ++co)
    for (Index b = 0; b < batch; ++b)
      for (Index oy = 0; oy < os.height; ++oy)
        for (Index ox = 0; ox < os.width; ++ox) {
          double sum = params(conv.parameter_count() - 3 + co);  // bias
          for (Index ci = 0; ci < 2; ++ci)
            for (Index ky = 0; ky < 3; ++ky)
              for (Index kx = 0; kx < 3; ++kx) {
                const Index y = 2 * oy + ky - 1, xx = 2 * ox + kx - 1;
                if (y < 0 || y >= 7 || xx < 0 || xx >= 6) continue;
                sum += params(co * 18 + (ci * 3 + ky) * 3 + kx) * at(x, ci, b, y, xx);
              }
          worst = std::max(worst, std::abs(sum - at(out, co, b, oy, ox)));
        }
  CHECK(worst < 1e-12);
}

TEST_CASE("pooling: gradients match finite differences; max ties go to the first tap") {
  check_layer_gradients(Pool2d<double>({2, 4, 6}, PoolKind::max), 3, 11);
  check_layer_gradients(Pool2d<double>({3, 6, 2}, PoolKind::average), 2, 12);
  CHECK_THROWS_AS(Pool2d<double>({1, 5, 4}, PoolKind::max), std::invalid_argument);

  // One 2×2 window per channel: ties between taps.
  const Pool2d<double> pool({3, 2, 2}, PoolKind::max);
  Tensor<double> x;
  x.resize({3, 2, 2}, 1);
  x.data.col(0) << 1, 5, 5, 5;  // B, C, D tie: B wins
  x.data.col(1) << 2, 2, 2, 2;  // all tie: A wins
  x.data.col(2) << 0, 1, 3, 3;  // C, D tie: C wins
  Tensor<double> out, grad_out, grad_in;
  Workspace<double> ws;
  pool.forward(nullptr, x, out, ws);
  CHECK(out.data(0, 0) == 5);
  CHECK(out.data(0, 1) == 2);
  CHECK(out.data(0, 2) == 3);
  grad_out.resize(pool.output_shape(), 1);
  grad_out.data << 7, 8, 9;
  pool.backward(nullptr, x, out, grad_out, &grad_in, nullptr, ws);
  Mat<double> expected(4, 3);
  expected << 0, 8, 0, 7, 0, 0, 0, 0, 9, 0, 0, 0;
  CHECK(grad_in.data == expected);
}

TEST_CASE("activation, dense and global average pooling: gradients match finite differences") {
  // Relu: keep inputs away from the kink.
  check_layer_gradients(ActivationLayer<double>({2, 3, 2}, Activation::tanh), 2, 21);
  check_layer_gradients(ActivationLayer<double>({2, 3, 2}, Activation::relu), 2, 22);
  check_layer_gradients(Dense<double>({3, 2, 2}, 4), 3, 23);  // flattening path
  check_layer_gradients(Dense<double>({5, 1, 1}, 3), 4, 24);  // already flat
  check_layer_gradients(GlobalAvgPool<double>({3, 3, 2}), 2, 25);
}

TEST_CASE("dense: flattening orders features (c, y, x) as data rows are stored") {
  const Shape in{2, 1, 2};
  const Dense<double> dense(in, 1);
  // W = [1, 10, 100, 1000], b = 0: output = x(c0,0) + 10 x(c0,1) + 100 x(c1,0) + 1000 x(c1,1).
  const Eigen::VectorXd params = (Eigen::VectorXd(5) << 1, 10, 100, 1000, 0).finished();
  Tensor<double> x, out;
  x.resize(in, 2);
  // Column c holds channel c: sample 0 pixels, then sample 1 pixels.
  x.data.col(0) << 1, 2, 3, 4;
  x.data.col(1) << 5, 6, 7, 8;
  Workspace<double> ws;
  dense.forward(params.data(), x, out, ws);
  CHECK(out.data(0, 0) == 1 + 20 + 500 + 6000);
  CHECK(out.data(1, 0) == 3 + 40 + 700 + 8000);
}

TEST_CASE("residual block: gradients match finite differences, with and without projection") {
  const ResidualBlock<double> identity({2, 4, 4}, 2, 1);
  CHECK_FALSE(identity.has_projection());
  CHECK(identity.parameter_count() == 2 * (9 * 2 * 2 + 2));
  check_layer_gradients(identity, 2, 31);
  const ResidualBlock<double> projection({2, 6, 6}, 3, 2);
  CHECK(projection.has_projection());
  CHECK(projection.output_shape() == Shape{3, 3, 3});
  CHECK(projection.parameter_count() == (9 * 2 * 3 + 3) + (9 * 3 * 3 + 3) + (2 * 3 + 3));
  check_layer_gradients(projection, 2, 32);
}

TEST_CASE("layers: FLOP counts match hand counts") {
  // conv 2→3, 3×3, stride 2, pad 1 on 7×6: output 3×4×3; N = 12·B rows, K = 18 taps.
  const Conv2d<double> conv({2, 7, 6}, {2, 3, 3, 2, 1});
  const double n = 12 * 5, k = 18, co = 3;
  CHECK(conv.forward_flops(5) == 2 * n * k * co + n * co);
  CHECK(conv.backward_flops(5, false) == 2 * n * k * co + n * co);
  CHECK(conv.backward_flops(5, true) == 4 * n * k * co + n * co + n * k);
  const Pool2d<double> max_pool({4, 6, 8}, PoolKind::max), avg_pool({4, 6, 8}, PoolKind::average);
  CHECK(max_pool.forward_flops(2) == 3 * 4 * 3 * 4 * 2);
  CHECK(max_pool.backward_flops(2, true) == 3 * 4 * 3 * 4 * 2);
  CHECK(avg_pool.forward_flops(2) == 4 * 4 * 3 * 4 * 2);
  CHECK(avg_pool.backward_flops(2, true) == 1 * 4 * 3 * 4 * 2);
  const Dense<double> dense({16, 5, 5}, 120);
  CHECK(dense.forward_flops(32) == 2.0 * 32 * 400 * 120 + 32 * 120);
  CHECK(dense.backward_flops(32, true) == 4.0 * 32 * 400 * 120 + 32 * 120);
  const ActivationLayer<double> relu({6, 28, 28}, Activation::relu),
      th({6, 28, 28}, Activation::tanh);
  CHECK(relu.forward_flops(2) == 2 * 6 * 784);
  CHECK(relu.backward_flops(2, true) == 2 * 2 * 6 * 784);
  CHECK(th.backward_flops(2, true) == 3 * 2 * 6 * 784);
  const GlobalAvgPool<double> gap({64, 7, 7});
  CHECK(gap.forward_flops(3) == 3 * 64 * 49);
  CHECK(gap.backward_flops(3, true) == 3 * 64);
}

TEST_CASE("residual block: FLOP count matches a hand count") {
  // Identity block, 2 channels of 4×4, batch 3: N = 48 output rows, K = 18 taps, 96
  // elements in A, Z, Y and X.
  const ResidualBlock<double> block({2, 4, 4}, 2, 1);
  const double n = 48, k = 18, c = 2, e = 96;
  const double conv_forward = 2 * n * k * c + n * c;
  const double conv_backward_with_input = 4 * n * k * c + n * c + n * k;
  const double conv_backward_without = 2 * n * k * c + n * c;
  CHECK(block.forward_flops(3) == conv_forward + e + conv_forward + e + e);
  CHECK(block.backward_flops(3, true) ==
        2 * e + conv_backward_with_input + 2 * e + conv_backward_with_input + e);
  CHECK(block.backward_flops(3, false) ==
        2 * e + conv_backward_with_input + 2 * e + conv_backward_without);
  // Projection block 2→3 channels, stride 2 on 4×4: N = 4·3 rows; the 1×1 projection has
  // K = 2 taps.
  const ResidualBlock<double> down({2, 4, 4}, 3, 2);
  const double m = 12, ya = 36;
  const double a_fwd = 2 * m * 18 * 3 + m * 3, b_fwd = 2 * m * 27 * 3 + m * 3,
               p_fwd = 2 * m * 2 * 3 + m * 3;
  CHECK(down.forward_flops(3) == a_fwd + ya + b_fwd + p_fwd + ya + ya);
  const double a_bwd = 4 * m * 18 * 3 + m * 3 + m * 18, b_bwd = 4 * m * 27 * 3 + m * 3 + m * 27,
               p_bwd = 4 * m * 2 * 3 + m * 3 + m * 2;
  CHECK(down.backward_flops(3, true) == 2 * ya + b_bwd + 2 * ya + a_bwd + p_bwd + 96);
}

TEST_CASE("conv2d: gradients match finite differences on 3-channel non-square inputs") {
  struct Case {
    Shape in;
    ConvOptions o;
  };
  for (const Case& c : {Case{{3, 5, 7}, {3, 4, 3, 1, 1}}, Case{{3, 8, 6}, {3, 2, 3, 2, 1}},
                        Case{{3, 9, 4}, {3, 2, 3, 2, 0}}, Case{{3, 4, 9}, {3, 3, 2, 1, 0}}}) {
    INFO("in " << c.in.channels << "x" << c.in.height << "x" << c.in.width << " k " << c.o.kernel
               << " s " << c.o.stride << " p " << c.o.padding);
    check_layer_gradients(Conv2d<double>(c.in, c.o), 2, 9);
  }
}

TEST_CASE("group norm: gradients match finite differences (G = 1, 2, C; non-square)") {
  check_layer_gradients(GroupNorm<double>({4, 3, 5}, 2), 3, 41);
  check_layer_gradients(GroupNorm<double>({3, 4, 2}, 1), 2, 42);  // layer normalization
  check_layer_gradients(GroupNorm<double>({3, 2, 3}, 3), 2, 43);  // instance normalization
  check_layer_gradients(GroupNorm<double>({6, 1, 1}, 3), 4, 44);  // 2 values per group
  CHECK_THROWS_AS(GroupNorm<double>({4, 2, 2}, 3), std::invalid_argument);
  CHECK_THROWS_AS(GroupNorm<double>({4, 2, 2}, 0), std::invalid_argument);
}

TEST_CASE("group norm: forward equals the formula computed with loops; FLOPs by hand") {
  const Shape in{4, 3, 2};
  const Index batch = 2, groups = 2;
  const GroupNorm<double> norm(in, groups);
  REQUIRE(norm.parameter_count() == 8);
  const Eigen::VectorXd params = random_values(8, 51);  // γ (4), then β (4)
  const Tensor<double> x = random_tensor(in, batch, 52);
  Tensor<double> out;
  Workspace<double> ws;
  norm.forward(params.data(), x, out, ws);
  const auto at = [&](const Tensor<double>& t, Index c, Index b, Index y, Index xx) {
    return t.data.data()[((c * t.batch + b) * t.shape.height + y) * t.shape.width + xx];
  };
  double worst = 0;
  for (Index b = 0; b < batch; ++b)
    for (Index g = 0; g < groups; ++g) {
      double sum = 0, squares = 0;
      for (Index c = 2 * g; c < 2 * g + 2; ++c)
        for (Index y = 0; y < 3; ++y)
          for (Index xx = 0; xx < 2; ++xx) sum += at(x, c, b, y, xx);
      const double mean = sum / 12;
      for (Index c = 2 * g; c < 2 * g + 2; ++c)
        for (Index y = 0; y < 3; ++y)
          for (Index xx = 0; xx < 2; ++xx) squares += std::pow(at(x, c, b, y, xx) - mean, 2);
      const double sd = std::sqrt(squares / 12 + 1e-5);
      for (Index c = 2 * g; c < 2 * g + 2; ++c)
        for (Index y = 0; y < 3; ++y)
          for (Index xx = 0; xx < 2; ++xx) {
            const double expected = params(c) * (at(x, c, b, y, xx) - mean) / sd + params(4 + c);
            worst = std::max(worst, std::abs(expected - at(out, c, b, y, xx)));
          }
    }
  CHECK(worst < 1e-12);
  // Forward 7 per value + 3 per (sample, group); backward ∂β, ∂γ: 3 per value − 2 per
  // channel; the input gradient 8 per value.
  const double n = 24 * 5;
  CHECK(norm.forward_flops(5) == 7 * n + 3 * 2 * 5);
  CHECK(norm.backward_flops(5, false) == 3 * n - 2 * 4);
  CHECK(norm.backward_flops(5, true) == 11 * n - 2 * 4);
}

TEST_CASE("residual block: zero-padding shortcut (option A) and group normalization") {
  const BlockOptions zero_pad{.shortcut = Shortcut::zero_pad};
  const ResidualBlock<double> down({2, 6, 5}, 4, 2, 1.0, zero_pad);
  CHECK(down.has_zero_pad());
  CHECK_FALSE(down.has_projection());
  CHECK(down.output_shape() == Shape{4, 3, 3});
  CHECK(down.parameter_count() == (9 * 2 * 4 + 4) + (9 * 4 * 4 + 4));  // no shortcut weights
  check_layer_gradients(down, 2, 61);
  check_layer_gradients(ResidualBlock<double>({3, 5, 6}, 6, 2, 1.0, zero_pad), 2, 62);
  // With every weight and bias 0 the block is relu(S(X)): X subsampled at even rows and
  // columns in the first channels, zeros in the others.
  const Tensor<double> x = random_tensor({2, 6, 5}, 2, 63);
  Tensor<double> out;
  Workspace<double> ws;
  const Eigen::VectorXd zeros = Eigen::VectorXd::Zero(down.parameter_count());
  down.forward(zeros.data(), x, out, ws);
  const auto at = [&](const Tensor<double>& t, Index c, Index b, Index y, Index xx) {
    return t.data.data()[((c * t.batch + b) * t.shape.height + y) * t.shape.width + xx];
  };
  for (Index c = 0; c < 4; ++c)
    for (Index b = 0; b < 2; ++b)
      for (Index y = 0; y < 3; ++y)
        for (Index xx = 0; xx < 3; ++xx)
          CHECK(at(out, c, b, y, xx) == (c < 2 ? std::max(0.0, at(x, c, b, 2 * y, 2 * xx)) : 0.0));
  CHECK_THROWS_AS(ResidualBlock<double>({4, 6, 6}, 2, 2, 1.0, zero_pad), std::invalid_argument);

  // Group normalization after every convolution (and the projection): γ, β per channel.
  const ResidualBlock<double> normed({2, 6, 6}, 4, 2, 1.0, {.groups = 2});
  CHECK(normed.parameter_count() == (9 * 2 * 4 + 4 + 8) + (9 * 4 * 4 + 4 + 8) + (2 * 4 + 4 + 8));
  check_layer_gradients(normed, 2, 64);
  check_layer_gradients(ResidualBlock<double>({4, 5, 4}, 4, 1, 1.0, {.groups = 2}), 2, 65);
  check_layer_gradients(
      ResidualBlock<double>({2, 6, 6}, 4, 2, 1.0, {.shortcut = Shortcut::zero_pad, .groups = 4}), 2,
      66);
  // FLOPs of option A: the sum and the input-gradient path touch Cin·Ho·Wo per sample.
  const Conv2d<double> a({2, 6, 5}, {2, 4, 3, 2, 1}), b({4, 3, 3}, {4, 4, 3, 1, 1});
  const double elements = 4 * 9 * 3, added = 2 * 9 * 3;
  CHECK(down.forward_flops(3) ==
        a.forward_flops(3) + elements + b.forward_flops(3) + added + elements);
  CHECK(down.backward_flops(3, true) == 2 * elements + b.backward_flops(3, true) + 2 * elements +
                                            a.backward_flops(3, true) + added);
}

TEST_CASE(
    "conv2d: one workspace and output through batches 5, 2, 5 give fresh ones' results bit for "
    "bit") {
  // A thread's workspace and tensors serve blocks of different sizes (an evaluation's full
  // blocks and a range's last, shorter one; a gradient's batch): every buffer and output
  // keeps its largest storage, and nothing it held for a larger batch may reach a smaller
  // batch's results.
  const Shape in{2, 7, 6};
  const Conv2d<double> conv(in, ConvOptions{2, 3, 3, 1, 1});
  const Eigen::VectorXd params = random_values(conv.parameter_count(), 11);
  Workspace<double> shared;
  Tensor<double> out, grad_in;
  std::vector<const double*> first_storage;
  for (const Index batch : {5, 2, 5}) {
    INFO("batch " << batch);
    const Tensor<double> x = random_tensor(in, batch, 20 + std::uint64_t(batch));
    const Tensor<double> r = random_tensor(conv.output_shape(), batch, 30 + std::uint64_t(batch));
    Tensor<double> fresh_out, fresh_grad_in;
    Eigen::VectorXd grad(params.size()), fresh_grad(params.size());
    conv.forward(params.data(), x, out, shared);
    conv.backward(params.data(), x, out, r, &grad_in, grad.data(), shared);
    Workspace<double> fresh;
    conv.forward(params.data(), x, fresh_out, fresh);
    conv.backward(params.data(), x, fresh_out, r, &fresh_grad_in, fresh_grad.data(), fresh);
    CHECK(out.data.rows() == 7 * 6 * batch);
    CHECK(out.data == fresh_out.data);
    CHECK(grad == fresh_grad);
    CHECK(grad_in.data == fresh_grad_in.data);
    // The im2col block (7·6 output pixels per sample, 2·3·3 taps), the padded input, ∇cols
    // and the two tensors: the first batch's storage serves all three batches.
    REQUIRE(shared.buffers.size() == 3);
    CHECK(std::as_const(shared.buffers[0]).view().rows() == 7 * 6 * batch);
    CHECK(shared.buffers[0].capacity() == 7 * 6 * 5 * 18);
    CHECK(shared.buffers[1].capacity() == 9 * 8 * 2 * 5);  // padded: (7+2)·(6+2) per image
    CHECK(out.capacity() == 7 * 6 * 5 * 3);
    CHECK(grad_in.capacity() == 7 * 6 * 5 * 2);
    const std::vector<const double*> storage{std::as_const(shared.buffers[0]).view().data(),
                                             std::as_const(shared.buffers[1]).view().data(),
                                             std::as_const(shared.buffers[2]).view().data(),
                                             out.data.data(), grad_in.data.data()};
    if (first_storage.empty()) first_storage = storage;
    CHECK(storage == first_storage);
  }
}
