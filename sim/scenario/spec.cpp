// The table of every scenario key (DESIGN.md §4). This is the single source of
// truth for validation, defaults, the JSON Schema and the key reference: a key that
// is not listed here is rejected. Bounds on quantities are in SI base units.
#include "sim/scenario/spec.hpp"

#include "sim/scenario/messages.hpp"

namespace dlsim::sim::spec {
namespace {

using nlohmann::json;

// The value at root.a.b... when every step exists, else null.
json lookup(const json& root, std::initializer_list<const char*> path) {
  const json* at = &root;
  for (const char* step : path) {
    if (!at->is_object() || !at->contains(step)) return nullptr;
    at = &(*at)[step];
  }
  return *at;
}

Key kind_key(std::string name, json fallback, std::string doc) {
  return defaulted(std::move(name), string(), std::move(fallback), std::move(doc));
}

// ---------------------------------------------------------------- data
Object data_section() {
  const Object partition = with_kinds(
      kind_key("kind", "iid", "How samples are split among workers."), {},
      {{"iid", "Shuffle, then equal contiguous shards.", {}},
       {"dirichlet",
        "Per class, worker shares drawn from Dir(alpha); every worker gets >= 1 sample.",
        {defaulted("alpha", number().gt(0), 0.5,
                   "Concentration: small = few classes per worker, large = near iid.")}},
       {"shards",
        "Sort by label, cut into workers*per_worker shards, deal per_worker at random.",
        {defaulted("per_worker", integer().ge(1), 2, "Shards dealt to every worker.")}},
       {"sorted", "Stable sort by label, then contiguous shards sized as for iid.", {}}});
  const std::vector<Key> with_data = {
      defaulted("test_fraction", number().ge(0).lt(1), 0,
                "Fraction of the training samples held out as the test set (0: none)."),
      optional("train_samples", integer().ge(1),
               "Keep only a seeded random subset of this many training samples."),
      defaulted("normalize", one_of({"none", "standard", "minmax"}), "none",
                "Feature scaling fitted on the training split: none, standard (zero mean, "
                "unit variance) or minmax ([0,1])."),
      defaulted("partition", object(partition), json::object(),
                "How the training set is split among the workers."),
  };
  const auto preset_is_msd = [](const json& root) {
    return lookup(root, {"data", "preset"}) == "yearpredictionmsd";
  };
  Key samples = defaulted("samples", integer().ge(1), 1000, "Number of samples generated.");
  samples.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 463715 : 1000); };
  samples.default_doc = "463715 with preset yearpredictionmsd, else 1000";
  Key features = defaulted("features", integer().ge(1), 20, "Number of features.");
  features.dynamic = [=](const json& root) { return json(preset_is_msd(root) ? 90 : 20); };
  features.default_doc = "90 with preset yearpredictionmsd, else 20";
  Object data = with_kinds(
      kind_key("source", "synthetic-regression",
               "Where samples come from; none for models that need no data (profile, "
               "consensus)."),
      {},
      {
          {"synthetic-regression",
           "b = A w* + noise; rows of A Gaussian with a chosen condition number.",
           std::vector<Key>{
               defaulted("preset", one_of({"none", "yearpredictionmsd"}), "none",
                         "Shape preset: yearpredictionmsd = 463,715 samples x 90 features "
                         "(as in the LPC-SVRG paper)."),
               samples,
               features,
               defaulted("noise", number().ge(0), 0.1, "Standard deviation of the label noise."),
               defaulted("condition", number().ge(1), 1,
                         "Condition number of the feature covariance."),
           } + with_data},
          {"synthetic-classification",
           "Gaussian clusters: class centres N(0, separation^2/features I), unit noise.",
           std::vector<Key>{
               defaulted("samples", integer().ge(1), 1000, "Number of samples generated."),
               defaulted("features", integer().ge(1), 20, "Number of features."),
               defaulted("classes", integer().ge(2).le(100000), 2, "Number of classes."),
               defaulted("separation", number().ge(0), 2,
                         "Scale of the class centres (mean centre distance sqrt(2)*separation, "
                         "noise 1 per feature)."),
           } + with_data},
          {"csv", "A CSV file with a header row; the label column, every other column numeric.",
           std::vector<Key>{
               required("path", string().nonempty(), "Path of the training CSV file."),
               defaulted("test_path", string(), "",
                         "Path of a separate test CSV file (empty: none)."),
               defaulted("label_column", string().nonempty(), "label",
                         "Name of the column that holds the label."),
           } + with_data},
          {"libsvm",
           "libsvm/svmlight lines `label idx:value ...` (1-based indices), stored densely.",
           std::vector<Key>{
               required("path", string().nonempty(), "Path of the training file."),
               defaulted("test_path", string(), "", "Path of a separate test file (empty: none)."),
           } + with_data},
          {"fashion-mnist",
           "Fashion-MNIST IDX gzip files: 60,000 training and 10,000 test images, 784 pixels "
           "in [0,1], 10 classes.",
           std::vector<Key>{
               defaulted("path", string().nonempty(), "/usr/share/datasets/fashion-mnist",
                         "Directory holding the four *-ubyte.gz files (Debian package "
                         "dataset-fashion-mnist)."),
           } + with_data},
          {"none", "No data (model.kind profile or consensus).", {}},
      });
  data.discriminator->dynamic = [](const json& root) {
    const json kind = lookup(root, {"model", "kind"});
    return json(kind == "profile" || kind == "consensus" ? "none" : "synthetic-regression");
  };
  data.discriminator->default_doc =
      "none when model.kind is profile or consensus, else synthetic-regression";
  return data;
}

// ---------------------------------------------------------------- model
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

// ---------------------------------------------------------------- algorithm
Object algorithm_section() {
  // Compressors (models/compress, ALGORITHMS.md §1): the bits charged are those of the
  // real encoded message. Cross-key checks (clip, bits "auto", ratio xor k, k <= d) are in
  // models/compress/factory.cpp, called from to_scenario.cpp and at run start.
  const Key bucket = optional("bucket", integer().ge(1),
                              "Coordinates per bucket, each with its own 32-bit range (absent: "
                              "the whole message or tensor is one bucket).");
  const std::vector<Key> sparsity = {
      optional("ratio", number().ge(0).lt(1),
               "Fraction of coordinates dropped: k = max(1, round(d(1 - ratio))). Give "
               "ratio or k."),
      optional("k", integer().ge(1),
               "Coordinates kept (at most the model's parameters; not with per_tensor on a "
               "model with several tensors). Give ratio or k."),
  };
  const Object compressor = with_kinds(
      kind_key("kind", "none",
               "How messages are encoded on the wire; bits per message of d coordinates: "
               "none 32d, fp16 16d, qsgd 32 per bucket + d(1 + ceil(log2(s+1))), lpc 32 per "
               "bucket + d*bits, terngrad 32 + 2d, sign 32 + d, top-k k(32 + ceil(log2 d)), "
               "random-k 32k + 64."),
      {defaulted("error_feedback", boolean(), false,
                 "Error feedback: e <- e + v; send q = C(e); e <- e - q (one residual per "
                 "message stream). Allowed on every kind; with none it feeds back fp32 "
                 "rounding."),
       defaulted("per_tensor", boolean(), true,
                 "Compress each tensor (layer) of the model separately and concatenate; "
                 "bits = sum. No effect on models with one tensor.")},
      {{"none", "Uncompressed fp32: 32d bits. All-reducible.", {}},
       {"fp16",
        "IEEE half, round to nearest even, saturating at +-65504: 16d bits. All-reducible.",
        {}},
       {"qsgd",
        "QSGD (Alistarh et al. 2017): theta = ||v||_2 per bucket, unbiased stochastic "
        "rounding to s levels. Fixed coding: 32 per bucket + d(1 + ceil(log2(s+1))) bits; "
        "elias: 32 per bucket + Elias-omega (gap, sign, level) of nonzeros (profile models "
        "are charged the fixed-code size).",
        {defaulted("levels", integer().ge(1).le(2147483647), 7, "Magnitude levels s."), bucket,
         defaulted("coding", one_of({"fixed", "elias"}), "fixed",
                   "fixed: a sign bit and a ceil(log2(s+1))-bit level per coordinate; elias: "
                   "Elias-omega codes of (gap, sign, level) per nonzero, a data-dependent "
                   "size (profile models, which encode nothing, are charged the fixed-code "
                   "size)."),
         defaulted("biased", boolean(), false,
                   "Scale by 1/(1 + min(n/s^2, sqrt(n)/s)) (contraction variant).")}},
       {"lpc",
        "Stochastic quantizer with clipping (ALGORITHMS.md 1.1): theta from the clip rule, "
        "clip to +-theta, unbiased rounding to s = 2^(bits-1) - 1 levels: 32 per bucket + "
        "d*bits bits.",
        {defaulted("bits", any(), 4,
                   "Bits per coordinate (1 sign + bits-1 level bits; 32 per bucket + d*bits "
                   "in all): an integer in [2, 32], or \"auto\" (s = "
                   "ceil(sqrt(n)), bits = 1 + ceil(log2(s + 1)), n = bucket size or message "
                   "length)."),
         defaulted("clip", any(), "max",
                   "Range rule: \"max\" (theta = ||v||_inf, unbiased), \"norm\" (||v||_2, "
                   "unbiased), or an object {\"kind\": \"fixed\", \"value\": c} (theta = c), "
                   "{\"kind\": \"std\", \"factor\": c = 2.5} (min(||v||_inf, c std(v))), "
                   "{\"kind\": \"adaptive\", \"factor\": c = 1, \"decay\": 0.9} (c times "
                   "an EMA of ||v||_inf). A bare string is {\"kind\": string}."),
         bucket}},
       {"terngrad",
        "TernGrad (Wen et al. 2017): clip to 2.5 std, theta = ||v||_inf, stochastic "
        "{-1, 0, 1}*theta: 32 + 2d bits.",
        {}},
       {"sign", "Scaled sign: (||v||_1/d) sgn(v), sgn(0) = +1: 32 + d bits.", {}},
       {"top-k",
        "The k largest |v_i| (ties: lower index first), as ascending indices and fp32 "
        "values: k(32 + ceil(log2 d)) bits.",
        sparsity},
       {"random-k",
        "k uniformly random coordinates; a 64-bit seed is sent instead of the indices: "
        "32k + 64 bits.",
        sparsity + std::vector<Key>{defaulted("unbiased", boolean(), false,
                                              "Scale the values by d/k (unbiased).")}}});
  // The uplink compressor's defaults follow algorithm.kind (the sgd aliases and the
  // low-precision SVRG kinds name their compressor); the downlink's do not.
  Object uplink = compressor;
  uplink.discriminator->dynamic = [](const json& root) {
    const json kind = lookup(root, {"algorithm", "kind"});
    if (kind == "qsgd") return json("qsgd");
    if (kind == "ef-sgd") return json("sign");
    if (kind == "lpc-svrg" || kind == "alpc-svrg") return json("lpc");
    return json("none");
  };
  uplink.discriminator->default_doc =
      "qsgd for algorithm qsgd, sign for ef-sgd, lpc (4 bits, clip max) for lpc-svrg and "
      "alpc-svrg, else none";
  for (Key& key : uplink.keys) {
    if (key.name != "error_feedback") continue;
    key.dynamic = [](const json& root) {
      return json(lookup(root, {"algorithm", "kind"}) == "ef-sgd");
    };
    key.default_doc = "true for algorithm ef-sgd, else false";
  }
  // Learning-rate schedules (sim/algorithms/lr_schedule.hpp): eta_k for iteration k of T.
  const Object schedule = with_kinds(
      kind_key("kind", "constant", "How the step size changes over the run."),
      {defaulted("warmup", number().ge(0), 0,
                 "Linear warm-up over the first W iterations: eta_k = eta (k + 1) / W for k < "
                 "W. Below 1 a fraction of the run (W = round(warmup T), needs stop.iterations "
                 "or stop.epochs), from 1 on a whole number of iterations; 0: none.")},
      {{"constant", "eta_k = step_size.", {}},
       {"step",
        "Step decay: eta_k = step_size * factor^(milestones passed), milestone m at "
        "iteration round(m T) of a run of T iterations (stop.iterations or stop.epochs).",
        {required("milestones", array_of(number().gt(0).lt(1)),
                  "Increasing fractions of the run, in (0, 1), e.g. [0.5, 0.75]."),
         defaulted("factor", number().gt(0).le(1), 0.1,
                   "Multiplier of the step size at each milestone.")}}});
  const std::vector<Key> common = {
      defaulted("step_size", number().gt(0), 0.01, "Learning rate."),
      defaulted("batch_size", integer().ge(1), 32, "Samples per local gradient."),
      defaulted("momentum", number().ge(0).lt(1), 0, "Heavy-ball momentum."),
      defaulted("nesterov", boolean(), false, "Nesterov momentum (needs momentum > 0)."),
      defaulted("weight_decay", number().ge(0), 0, "Decoupled weight decay."),
      defaulted("compressor", object(uplink), json::object(),
                "Compression of every message a worker sends."),
      optional("schedule", object(schedule),
               "Learning-rate schedule eta_k of the local step of iteration k "
               "(sim/algorithms/lr_schedule.hpp; absent: constant step_size). alpc-svrg, whose "
               "steps derive from L and sigma, accepts only constant without warmup."),
  };
  const Key centralized_collective = defaulted(
      "collective", one_of({"parameter-server", "allgather", "ring-allreduce"}), "parameter-server",
      "How messages are combined: a parameter server (node id = workers), allgather, or ring "
      "all-reduce (all-reducible compressors only: none, fp16; no error feedback). The svrg "
      "kinds' server sends back the aggregate (fp32 unless downlink_compressor).");
  const std::vector<Key> svrg_keys = {
      centralized_collective,
      optional("epoch_length", integer().ge(1),
               "Inner steps per epoch (absent: floor(train samples / (workers * batch_size)), "
               "one pass over a shard; required for models without data, whose snapshot "
               "gradient costs epoch_length batch gradients)."),
      optional("downlink_compressor", object(compressor),
               "parameter-server only: compression of the aggregate the server sends back "
               "(absent: fp32, 32 bits per coordinate)."),
  };
  const Key snapshot = defaulted(
      "snapshot", one_of({"last", "average"}), "last",
      "The next snapshot: the last iterate, or the mean of the epoch's iterates (x restarts "
      "there).");
  const Key quantize_snapshot =
      defaulted("quantize_snapshot", boolean(), false,
                "Send the snapshot gradients with the compressor instead of fp32.");
  const Key consensus_step =
      defaulted("consensus_step", number().gt(0), 1.0,
                "CHOCO's consensus step gamma, usually in (0, 1] (choco-sgp: at most 1); "
                "adag-sgd's and adag-sgp's upper bound before the per-coordinate scaling "
                "(tune it with a sweep over choco-gossip).");
  const Key choco_order = defaulted(
      "order", one_of({"adagossip", "choco-paper"}), "adagossip",
      "adagossip: apply last round's messages, consensus step, local step, compress and send "
      "(the AdaGossip code); choco-paper: local step, consensus step, compress and send, "
      "receive (the original CHOCO code).");
  return with_kinds(
      kind_key("kind", "sgd", "The distributed training algorithm."), common,
      {{"sgd",
        "Centralized synchronous mini-batch SGD.",
        {defaulted("collective", one_of({"parameter-server", "allgather", "ring-allreduce"}),
                   "parameter-server",
                   "How gradients are combined: a parameter server (an extra node with id = "
                   "workers; the model goes back in fp32), allgather, or ring all-reduce "
                   "(all-reducible compressors only: none, fp16; no error feedback).")}},
       {"dpsgd", "Decentralized parallel SGD: local step, then gossip with neighbours.", {}},
       // Decentralized gossip with compression (sim/algorithms/choco_sgd.cpp, sgp.cpp).
       {"choco-sgd",
        "CHOCO-SGD (Koloskova et al. 2019): gossip on public copies x_hat with compressed "
        "differences q = C(x - x_hat); x <- x + gamma sum_j w_ij (x_hat_j - x_hat_i). "
        "Symmetric (undirected, static) graphs with doubly stochastic weights.",
        {consensus_step, choco_order}},
       {"adag-sgd",
        "AdaG-SGD (Aketi, Hashemi, Roy 2024): choco-sgd with a per-coordinate consensus "
        "step min(gamma / (sqrt(v_hat) + epsilon), 1), v an EMA of r*r with bias "
        "correction.",
        {consensus_step, choco_order,
         defaulted("beta", number().ge(0).lt(1), 0.999, "EMA factor of r*r."),
         defaulted("epsilon", number().gt(0), 1e-8, "Added to sqrt(v_hat).")}},
       {"choco-gossip",
        "CHOCO-gossip (Koloskova et al. 2019): choco-sgd without local steps (pure "
        "averaging; model.kind consensus or profile), to tune consensus_step.",
        {consensus_step}},
       {"sgp",
        "Stochastic gradient push (Assran et al. 2019): push-sum of (x, w) with the "
        "column-stochastic push weights of any graph (directed, time-varying); metrics use "
        "z = x / w. Messages are fp32 (compressor none).",
        {}},
       {"choco-sgp",
        "Compressed push-sum (Taheri et al. 2020 with CHOCO's consensus step): public copies "
        "of the numerator x and the scalar weight w, compressed differences q = C(x - x_hat) "
        "(the weight's in fp32), x <- x + gamma (sum_j P_ij x_hat_j - x_hat_i) with the "
        "column-stochastic push weights P of any graph (directed, time-varying); metrics "
        "use z = x / w (sim/algorithms/compressed_push_sum.hpp).",
        {defaulted("consensus_step", number().gt(0).le(1), 1.0,
                   "gamma in (0, 1] (above 1 the push weights turn negative).")}},
       {"adag-sgp",
        "choco-sgp with AdaGossip's per-coordinate step on the sender's side, gamma_j = "
        "min(gamma / (sqrt(v_hat_j) + epsilon), 1), v_j an EMA of j's decoded messages "
        "q_j*q_j; per-coordinate weights w (compressed like x, so messages carry two "
        "vectors) and z = x / w elementwise. Experimental: diverged at 90% top-k.",
        {consensus_step, defaulted("beta", number().ge(0).lt(1), 0.999, "EMA factor of q*q."),
         defaulted("epsilon", number().gt(0), 1e-8, "Added to sqrt(v_hat).")}},
       // The sgd aliases and the SVRG family (sim/algorithms/svrg.cpp, alpc_svrg.cpp).
       {"qsgd",
        "sgd with the qsgd compressor (Alistarh et al. 2017): compressor.kind defaults to and "
        "must be qsgd.",
        {centralized_collective}},
       {"ef-sgd",
        "sgd with error feedback (Karimireddy et al. 2019): compressor.error_feedback "
        "defaults to and must be true; compressor.kind defaults to sign (EF-signSGD).",
        {centralized_collective}},
       {"svrg",
        "SVRG (Johnson & Zhang 2013), prox-SVRG when model.l1 > 0 (Xiao & Zhang 2014): "
        "per epoch a full-precision snapshot gradient mu, then epoch_length steps with "
        "v_i = grad f_i(x;B) - grad f_i(snapshot;B) + mu.",
        svrg_keys + std::vector<Key>{snapshot}},
       {"lpc-svrg",
        "LPC-SVRG (Yu, Wu, Huang, AISTATS 2019): svrg with low-precision (lpc) inner messages.",
        svrg_keys + std::vector<Key>{snapshot, quantize_snapshot,
                                     defaulted("quantize", one_of({"vr-gradient", "difference"}),
                                               "vr-gradient",
                                               "What the inner message carries: the whole v_i "
                                               "(vr-gradient) or only grad f_i(x;B) - grad "
                                               "f_i(snapshot;B), mu added in full precision "
                                               "(difference).")}},
       {"alpc-svrg",
        "ALPC-SVRG (Yu, Wu, Huang 2019): Katyusha momentum (Allen-Zhu 2017) over "
        "low-precision differences grad f_i(x;B) - grad f_i(snapshot;B); tau2 = 1/2, tau1 = "
        "min(sqrt(m sigma/(3L)), 1/2), alpha = 1/(3 tau1 L), m = epoch_length.",
        svrg_keys + std::vector<Key>{
                        quantize_snapshot,
                        optional("sigma", number().gt(0),
                                 "Strong convexity (absent: model.l2, which must then be > 0)."),
                        optional("L", number().gt(0),
                                 "Smoothness (absent: lambda_max of the Hessian at 0 on the "
                                 "training set by power iteration; least-squares, logistic "
                                 "and softmax only)."),
                        defaulted("option", one_of({"I", "II"}), "I",
                                  "y-step: I y = prox(x - grad/(3L)), II y = x + tau1 (z' - "
                                  "z)."),
                        defaulted("double_sampling", boolean(), false,
                                  "Send two independent encodings of every inner message, "
                                  "one for the z-step, one for the y-step (option I; bits "
                                  "doubled).")}}});
}

// ---------------------------------------------------------------- topology
Object topology_section() {
  const auto dims = [](int at_least) {
    return required("dims", array_of(integer().ge(at_least)).nonempty(),
                    "Size of each dimension; the product must equal workers.");
  };  // the same bound for torus and grid: the reference documents the key once
  // One definition for both kinds, so that the reference documents `p` once.
  const Key probability = defaulted("p", number().ge(0).le(1), 0.1,
                                    "erdos-renyi: probability of each edge (> 0); small-world: "
                                    "probability that each lattice edge is rewired.");
  return with_kinds(
      kind_key("kind", "ring",
               "The communication graph of decentralized algorithms. Random kinds draw from "
               "the scenario's seed."),
      {defaulted("weights", one_of({"metropolis", "uniform", "max-degree"}), "metropolis",
                 "Mixing weights: metropolis 1/(1+max(d_i,d_j)), uniform 1/(d_i+1) (doubly "
                 "stochastic only on regular graphs), max-degree 1/(1+d_max); directed kinds "
                 "use them as column-stochastic push weights.")},
      {{"complete", "Every pair of nodes.", {}},
       {"star", "Node 0 ~ every other node.", {}},
       {"ring", "i ~ i+1 and i-1 (mod n).", {}},
       {"torus", "+-1 along each dimension with wrap-around (duplicates merged).", {dims(2)}},
       {"grid", "+-1 along each dimension, no wrap-around.", {dims(2)}},
       {"hypercube", "i ~ i xor 2^j; workers must be a power of 2.", {}},
       {"exponential", "i ~ i +- 2^k (mod n) for every 2^k < n.", {}},
       {"random-regular",
        "A uniformly random connected graph where every node has the same degree.",
        {defaulted("degree", integer().ge(1), 3,
                   "Degree of every node; workers x degree must be even.")}},
       {"erdos-renyi",
        "G(n, p): every edge independently with probability p, resampled until connected.",
        {probability}},
       {"small-world",
        "Watts-Strogatz: ring lattice with k neighbours, edges rewired with probability p, "
        "resampled until connected.",
        {defaulted("k", integer().ge(2), 4,
                   "Lattice neighbours of each node (even, k/2 per side)."),
         probability}},
       {"edge-list",
        "Undirected edges read from a file: one \"i j\" per line (ids 0..workers-1), # comments.",
        {required("path", string().nonempty(), "Path of the edge-list file.")}},
       {"one-peer-exponential",
        "Time-varying: in round t node i sends to i + 2^(t mod ceil(log2 n)) (mod n); weights 1/2.",
        {}},
       {"random-matching",
        "Time-varying: a fresh random perfect matching every round (workers even); weights 1/2.",
        {}},
       {"directed-ring", "Directed: i -> i+1 (mod n).", {}},
       {"directed-exponential", "Directed: i -> i + 2^k (mod n) for every 2^k < n.", {}}});
}

// ---------------------------------------------------------------- network
Object network_section() {
  const auto bandwidth_default = [](const json& root) {
    json b = lookup(root, {"network", "bandwidth"});
    return b.is_null() ? json("10Gbps") : b;
  };
  Key egress = defaulted("egress", rate().gt(0), "10Gbps", "Egress port rate of every node.");
  Key ingress = defaulted("ingress", rate().gt(0), "10Gbps", "Ingress port rate of every node.");
  for (Key* k : {&egress, &ingress}) {
    k->dynamic = bandwidth_default;
    k->default_doc = "the value of network.bandwidth";
  }
  const Object node = plain({
      required("id", integer().ge(0),
               "Node id: a worker 0..workers-1, or workers for the parameter server."),
      optional("egress", rate().gt(0), "Egress port rate of this node."),
      optional("ingress", rate().gt(0), "Ingress port rate of this node."),
  });
  const Object link = plain({
      required("from", integer().ge(0), "Sending node id."),
      required("to", integer().ge(0), "Receiving node id."),
      optional("latency", time().ge(0), "Latency of this link."),
      optional("bandwidth", rate().gt(0), "Bandwidth of this link."),
      optional("drop_probability", number().ge(0).lt(1),
               "Probability that a transmission on this link is lost (overrides "
               "network.faults.drop_probability)."),
  });
  const Object node_failure = plain({
      required("node", integer().ge(0), "The worker that fails."),
      required("at", time().ge(0),
               "Simulated time of the failure: the worker stops at its first iteration "
               "boundary at or after it."),
  });
  const Object faults = plain({
      defaulted("drop_probability", number().ge(0).lt(1), 0,
                "Probability that a transmission is lost; the sender sends it again after "
                "retransmit_timeout, and it arrives once. Each attempt counts in bytes_wire."),
      optional("retransmit_timeout", time().gt(0),
               "How long a sender waits before resending a lost message (default: 3 round "
               "trips, 6 x network.latency, at least 1us)."),
      optional("fail", array_of(object(node_failure)),
               "Node failures (decentralized algorithms on static undirected graphs): each "
               "worker stops at its first iteration boundary at or after `at`; its neighbours "
               "notice after fail_timeout and give its mixing weight to themselves."),
      optional("fail_timeout", time().gt(0),
               "How long a neighbour waits for a failed node's message before it drops the "
               "node: counted from when it began waiting for the round's messages, or from "
               "the failure if later; live nodes are never suspected (default: 3 round trips, "
               "6 x network.latency, at least 1us). Only with fail."),
  });
  const Object change = plain({
      required("at", time().ge(0), "Simulated time from which the change holds."),
      optional("from", integer().ge(0), "Link change: sending node id (with to)."),
      optional("to", integer().ge(0), "Link change: receiving node id (with from)."),
      optional("node", integer().ge(0), "Node change: the node whose ports change."),
      optional("latency", time().ge(0), "New latency of the link."),
      optional("bandwidth", rate().gt(0), "New bandwidth of the link."),
      optional("egress", rate().gt(0), "New egress port rate of the node."),
      optional("ingress", rate().gt(0), "New ingress port rate of the node."),
  });
  const Object outage = plain({
      required("from", integer().ge(0), "Sending node id."),
      required("to", integer().ge(0), "Receiving node id."),
      required("start", time().ge(0), "Start of the outage."),
      required("end", time().gt(0), "End of the outage (messages wait until then)."),
  });
  return plain({
      defaulted("latency", time().ge(0), "10us", "Latency of every link."),
      defaulted("bandwidth", rate().gt(0), "10Gbps", "Bandwidth of every link."),
      defaulted("sharing", one_of({"fair", "fifo"}), "fair",
                "How concurrent transfers share ports and links: max-min fair or FIFO."),
      defaulted("header", size().ge(0), "0B", "Header size added to every message."),
      defaulted("nic", object(plain({egress, ingress})), json::object(),
                "Port rates of every node (full duplex)."),
      defaulted("nodes", array_of(object(node)), json::array(), "Per-node NIC overrides."),
      defaulted("links", array_of(object(link)), json::array(), "Per-link overrides (directed)."),
      defaulted("faults", object(faults), json::object(),
                "Lost messages and their retransmission (sim/network/faults.hpp)."),
      defaulted("schedule", array_of(object(change)), json::array(),
                "Changes of link or node parameters at given simulated times; each takes effect "
                "at the first network event at or after its time."),
      defaulted("down", array_of(object(outage)), json::array(),
                "Link outages: the link delivers nothing in [start, end), messages wait."),
  });
}

// ---------------------------------------------------------------- the rest
Object compute_section() {
  return plain({
      defaulted("speed", flops().gt(0), "10GFLOPS",
                "FLOP/s of every worker and of the parameter server."),
      defaulted("per_worker", array_of(number().gt(0)), json::array(),
                "Time factor per worker (4: that worker's math takes 4x as long); empty: all 1."),
      defaulted("jitter", number().ge(0), 0, "Sigma of a lognormal factor on every compute time."),
  });
}

Object stop_section() {
  Object stop = plain({
      optional("epochs", number().gt(0), "Stop after this many epochs."),
      optional("iterations", integer().ge(1), "Stop after this many iterations."),
      optional("sim_time", time().gt(0), "Stop at this simulated time."),
      optional("bits", size().gt(0), "Stop when this many payload bits have been sent."),
      optional("target_loss", number(), "Stop when the train loss reaches this value."),
  });
  stop.min_keys = 1;
  return stop;
}

Object metrics_section() {
  Object every = plain({
      optional("iterations", integer().ge(1), "Record every this many iterations."),
      optional("epochs", number().gt(0), "Record every this many epochs."),
      optional("sim_time", time().gt(0), "Record every this much simulated time."),
  });
  every.min_keys = 1;
  every.max_keys = 1;
  return plain({
      defaulted("every", object(every), json{{"iterations", 10}},
                "How often a metrics row is recorded (exactly one key)."),
      defaulted("test", boolean(), true, "Evaluate on the test set (when there is one)."),
      optional("eval_samples", integer().ge(1),
               "Measure train_loss on a fixed seeded subsample of this many training samples "
               "(absent: the whole training set)."),
      defaulted("per_worker", boolean(), false,
                "Also write workers.csv: per metrics point one row per worker with that "
                "worker's own model evaluated (train_loss, test_loss, test_accuracy, "
                "consensus_distance = ||x_i - x_bar||^2). Decentralized algorithms only; "
                "costs one evaluation per worker (eval_samples helps)."),
  });
}

Object sweep_section() {
  Object grid;
  grid.map_values = std::make_shared<const Value>(array_of(any()).nonempty());
  return plain({
      defaulted("grid", object(grid), json::object(),
                "Dotted scenario key -> list of values; every combination is run."),
      defaulted("repeat", integer().ge(1), 1, "Runs per grid point (seeds seed, seed+1, ...)."),
  });
}

Object build_scenario() {
  Key output_dir = defaulted("dir", string().nonempty(), "results/run",
                             "Directory that receives metrics.csv and summary.json.");
  output_dir.dynamic = [](const json& root) {
    const json name = lookup(root, {"name"});
    return json("results/" + (name.is_string() ? name.get<std::string>() : std::string("run")));
  };
  output_dir.default_doc = "\"results/\" + name";
  return plain({
      defaulted("name", string(), "run", "Name of the run."),
      defaulted("description", string(), "", "Free text."),
      defaulted("seed", integer().ge(0), 1, "Seed from which every random stream is derived."),
      defaulted("workers", integer().ge(1).le(1'000'000), 4, "Number of workers."),
      defaulted("data", object(data_section()), json::object(), "The training data."),
      defaulted("model", object(model_section()), json::object(), "The model and objective."),
      defaulted("algorithm", object(algorithm_section()), json::object(),
                "The distributed training algorithm and its compressor."),
      defaulted("topology", object(topology_section()), json::object(),
                "The gossip graph (decentralized algorithms)."),
      defaulted("network", object(network_section()), json::object(),
                "Links, ports and how they are shared."),
      defaulted("compute", object(compute_section()), json::object(),
                "How long the math takes in simulated time."),
      defaulted("stop", object(stop_section()), json{{"iterations", 100}},
                "When the run ends: the first condition reached wins (at least one)."),
      defaulted("metrics", object(metrics_section()), json::object(),
                "What is recorded and how often."),
      defaulted("output", object(plain({output_dir})), json::object(), "Where results go."),
      defaulted("sweep", object(sweep_section()), json::object(),
                "Parameter grid for `dlsim sweep` (ignored by `dlsim run`)."),
  });
}

std::string bound_text(const Value& v) {
  using messages::number_text;
  if (v.min && v.max) {
    return " in " + std::string(v.min->inclusive ? "[" : "(") + number_text(v.min->value) + ", " +
           number_text(v.max->value) + (v.max->inclusive ? "]" : ")");
  }
  if (v.min) return std::string(v.min->inclusive ? " >= " : " > ") + number_text(v.min->value);
  if (v.max) return std::string(v.max->inclusive ? " <= " : " < ") + number_text(v.max->value);
  return "";
}

}  // namespace

const Object& scenario() {
  static const Object root = build_scenario();
  return root;
}

std::string type_text(const Value& value) {
  switch (value.type) {
    case Type::any:
      return "any value";
    case Type::boolean:
      return "boolean";
    case Type::integer:
      return "integer" + bound_text(value);
    case Type::number:
      return "number" + bound_text(value);
    case Type::string:
      if (!value.choices.empty()) return "one of: " + messages::join(value.choices);
      return value.non_empty ? "non-empty string" : "string";
    case Type::time:
      return "time (seconds, or ns us ms s)" + bound_text(value);
    case Type::rate:
      return "rate (bit/s, or bps Kbps Mbps Gbps Tbps Bps KBps MBps GBps)" + bound_text(value);
    case Type::size:
      return "size (bits, or b Kb Mb Gb B KB MB GB)" + bound_text(value);
    case Type::flops:
      return "speed (FLOP/s, or FLOPS KFLOPS MFLOPS GFLOPS TFLOPS)" + bound_text(value);
    case Type::array:
      return std::string(value.non_empty ? "non-empty " : "") + "array of " +
             type_text(*value.items);
    case Type::object:
      return "object";
  }
  return "value";
}

}  // namespace dlsim::sim::spec
