// The keys of the `model` section (docs/design.md §4): the objective each worker optimizes
// (linear models, dense and convolutional classifiers, consensus vectors, timing-only
// profiles), its regularizers and its initial weights. Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object model_section() {
  const Object linear_init =
      with_kinds(kind_key("kind", "zeros", "Initial model distribution."), {},
                 {{"zeros", "Every weight 0.", {}},
                  {"normal",
                   "Weights drawn from N(0, std^2) with the run's seed.",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  Key mlp_init_kind = kind_key("kind", "he", "Initial weight distribution (biases start at 0).");
  mlp_init_kind.dynamic = [](const json& root) {
    return json(lookup(root, {"model", "activation"}) == "tanh" ? "xavier" : "he");
  };
  mlp_init_kind.default_doc = "xavier when model.activation is tanh, else he";
  const Object mlp_init =
      with_kinds(mlp_init_kind, {},
                 {{"he", "N(0, 2/fan_in) (He et al. 2015), for relu.", {}},
                  {"xavier", "N(0, 2/(fan_in + fan_out)) (Glorot and Bengio 2010), for tanh.", {}},
                  {"normal",
                   "Weights drawn from N(0, std^2).",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  const std::vector<Key> regularizers = {
      defaulted("l2", number().ge(0), 0, "L2 regularization strength (biases excluded)."),
      defaulted("l1", number().ge(0), 0,
                "L1 regularization strength (proximal step: soft-thresholding)."),
      defaulted("bias", boolean(), true, "Add unregularized bias weights."),
  };
  const Key init = defaulted("init", object(linear_init), json::object(),
                             "Initial model (same on every worker).");
  // Convolutional networks (models/objectives/cnn): always with biases.
  const std::vector<Key> cnn_regularizers = {regularizers[0], regularizers[1]};
  const Key precision =
      defaulted("precision", one_of({"float", "double"}), "float",
                "Arithmetic of forward and backward passes: float (twice as fast) or double; the "
                "parameter vector is double either way.");
  const Object resnet_init =
      with_kinds(kind_key("kind", "he", "Initial weight distribution (biases start at 0)."), {},
                 {{"he",
                   "N(0, 2/fan_in) (He et al. 2015); second convolution of each block scaled by "
                   "(blocks)^(-1/2).",
                   {}},
                  {"normal",
                   "Weights drawn from N(0, std^2).",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  // model.kind "cnn": one object per layer, `type` chooses the layer (layer_list.hpp).
  // `type` is required; its fallback "" names no variant, so a missing type is reported
  // as a missing key.
  const Object cnn_layer = with_kinds(
      make_key("type", string(), "The layer.", Key::Presence::required, ""), {},
      {{"conv",
        "2-D convolution (cross-correlation) with biases: output size (n + 2 padding - kernel) / "
        "stride + 1, rounded down.",
        {
            required("channels", integer().ge(1).le(4096), "Output channels."),
            required("kernel", integer().ge(1), "Kernel height and width."),
            defaulted("stride", integer().ge(1), 1, "Step between windows."),
            defaulted("padding", integer().ge(0), 0,
                      "Zeros added on every side (less than the kernel)."),
        }},
       {"relu", "max(z, 0) elementwise.", {}},
       {"tanh", "tanh(z) elementwise.", {}},
       {"maxpool",
        "Maximum over 2x2 windows, stride 2 (height and width must be even).",
        {defaulted("size", integer().ge(1), 2, "Window size and stride; only 2 is supported.")}},
       {"avgpool",
        "Mean over 2x2 windows, stride 2 (height and width must be even).",
        {defaulted("size", integer().ge(1), 2, "Window size and stride; only 2 is supported.")}},
       {"dense",
        "Fully connected with biases (flattens its input).",
        {required("units", integer().ge(1).le(1 << 20), "Outputs.")}},
       {"global_avg_pool", "Mean of every channel over its height and width.", {}}});
  const Object cnn_init =
      with_kinds(kind_key("kind", "he", "Initial weight distribution (biases start at 0)."), {},
                 {{"he", "N(0, 2/fan_in) (He et al. 2015), for relu.", {}},
                  {"xavier", "N(0, 2/(fan_in + fan_out)) (Glorot and Bengio 2010), for tanh.", {}},
                  {"normal",
                   "Weights drawn from N(0, std^2).",
                   {defaulted("std", number().gt(0), 0.01, "Standard deviation.")}}});
  return with_kinds(
      kind_key("kind", "least-squares", "The objective each worker optimizes."), {},
      {{"least-squares", "f(w) = (1/2N) sum (a_i'w - b_i)^2 + (l2/2)||w||^2 + l1||w||_1.",
        regularizers + std::vector<Key>{init}},
       {"logistic",
        "Binary logistic regression, labels -1/+1 (0/1 accepted): mean log(1 + exp(-b_i a_i'w)) "
        "+ regularizers.",
        regularizers +
            std::vector<Key>{
                init,
                defaulted("positive_classes", array_of(number()), json::array(),
                          "Label values that become +1 (all others -1), to binarize multiclass "
                          "data; empty: labels must be -1/+1 or 0/1."),
            }},
       {"softmax",
        "Multinomial logistic regression: mean cross-entropy of softmax(A W + b) + regularizers.",
        regularizers + std::vector<Key>{init}},
       {"mlp", "Multilayer perceptron, softmax output, mean cross-entropy + regularizers.",
        regularizers +
            std::vector<Key>{
                defaulted("hidden", array_of(integer().ge(1)), json::array({128}),
                          "Widths of the hidden layers (empty: softmax regression)."),
                defaulted("activation", one_of({"relu", "tanh"}), "relu",
                          "Activation of the hidden layers."),
                defaulted("init", object(mlp_init), json::object(),
                          "Initial weights (same on every worker)."),
            }},
       {"lenet5",
        "LeNet-5 for 28x28x1 images: conv 6@5x5 pad 2, pool, conv 16@5x5, pool, dense 120, "
        "84, classes; 61,706 parameters for 10 classes (models/objectives/cnn).",
        cnn_regularizers +
            std::vector<Key>{
                defaulted("activation", one_of({"relu", "tanh"}), "relu",
                          "Activation after every convolution and hidden dense layer."),
                defaulted("pooling", one_of({"max", "average"}), "max", "2x2 pooling, stride 2."),
                defaulted("init", object(mlp_init), json::object(),
                          "Initial weights (same on every worker; biases start at 0)."),
                precision,
            }},
       {"resnet",
        "CIFAR-style ResNet (He et al. 2016) for 28x28x1 images: depth 6n+2, basic blocks of "
        "two 3x3 convolutions, stages of 16/32/64 channels times width, stride-2 downsampling "
        "with 1x1 projection shortcuts, global average pooling, no normalization layers.",
        cnn_regularizers +
            std::vector<Key>{
                defaulted("depth", integer().ge(8), 20,
                          "Layers with weights, 6n + 2 (8, 14, 20, 32, ...)."),
                defaulted("width", number().gt(0), 1,
                          "Channel multiplier: stages have round(16w), round(32w), round(64w) "
                          "channels."),
                defaulted("init", object(resnet_init), json::object(),
                          "Initial weights (same on every worker; biases start at 0)."),
                precision,
            }},
       {"cnn",
        "Convolutional network for 28x28x1 images from a list of layers (conv, relu, tanh, "
        "maxpool, avgpool, dense, global_avg_pool); the last layer must give 10 outputs, one per "
        "class (models/objectives/cnn/layer_list.hpp).",
        cnn_regularizers +
            std::vector<Key>{
                required("layers", array_of(object(cnn_layer)).nonempty(),
                         "The layers, input to output."),
                defaulted("init", object(cnn_init), json::object(),
                          "Initial weights (same on every worker; biases start at 0)."),
                precision,
            }},
       {"consensus",
        "No data: worker i starts from its own N(0, I) vector; train_loss = (1/n) sum_i "
        "||x_i - mean of the starts||^2 (gossip-averaging studies).",
        {defaulted("dimension", integer().ge(1), 10, "Length of every worker's vector.")}},
       {"profile",
        "No math: a parameter count and a compute time per batch, for timing what-ifs.",
        {
            required("parameters", integer().ge(1), "Number of model parameters (fp32 each)."),
            defaulted("compute_time", time().gt(0), "10ms", "Compute time of one batch gradient."),
        }}});
}

}  // namespace dlsim::sim::spec::sections
