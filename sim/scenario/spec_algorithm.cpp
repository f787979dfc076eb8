// The keys of the `algorithm` section (DESIGN.md §4): the distributed training
// algorithm and its options, the step size and its schedule, and the uplink compressor
// whose defaults follow algorithm.kind. Part of the key table (spec.cpp).
#include "sim/scenario/spec_sections.hpp"

namespace dlsim::sim::spec::sections {

using nlohmann::json;

Object algorithm_section() {
  const Object compressor = compressor_object();
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
        "choco-sgp with an adaptive per-coordinate step on the sender's side, gamma_jk = "
        "min(gamma * clamp((rho_j + epsilon) / (sqrt(v_hat_jk) + epsilon), 1/step_band, 1), "
        "1), v_j an EMA of j's decoded messages q_j*q_j, rho_j = sqrt(mean_k v_hat_jk) "
        "(AdaGossip's step made scale-free and banded to [gamma/step_band, gamma]); "
        "per-coordinate weights w (their differences compressed like x, so messages carry "
        "two vectors) and z = x / w elementwise.",
        {consensus_step, defaulted("beta", number().ge(0).lt(1), 0.999, "EMA factor of q*q."),
         defaulted("epsilon", number().gt(0), 1e-8, "Added to rho and sqrt(v_hat)."),
         defaulted("step_band", number().ge(1), 4.0,
                   "c: each sender's per-coordinate steps lie in [gamma/c, gamma]; the "
                   "push-sum weights then stay within a factor c of plain push-sum's (1 = "
                   "one step for every coordinate).")}},
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

}  // namespace dlsim::sim::spec::sections
