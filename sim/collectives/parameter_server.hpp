// The parameter-server collective (docs/algorithms.md §2; Li et al., "Scaling Distributed
// Machine Learning with the Parameter Server", OSDI 2014): node n, with its own NIC,
// serves the n workers round after round:
//   worker i:  sends encode_i(v_i) to the server (tag r), waits for the reply (tag r);
//   server:    ḡ = (1/n) Σ_i decode(encode_i(v_i))  (summed in worker order, each message
//              decoded in the format its sender declared), y = reply(r, ḡ), and sends y to
//              every worker: fp32 (32 bits per coordinate) by default, or with the
//              `downlink` compressor (its own stream on the server, random draws
//              (seed, "compress/downlink", n): error feedback keeps a downlink residual).
// reply is the identity by default (the SVRG family: every worker gets the mean, up to
// the downlink's rounding); SGD's server instead steps its own model with ḡ and sends
// the model (sim/algorithms/sgd.cpp), so the workers get x, not the mean.
//
// On a uniform network with no compute a lone round takes 2(α + nS/β): the n uplinks of
// S = bits + H share the server's ingress fairly, then the n downlinks its egress.
//
// Where the math runs: the server decodes, averages and encodes on the engine thread as
// the messages arrive; a worker encodes in contribute() and decodes the reply in
// result(), both math only (SGD runs them in its gradient job).
#pragma once

#include <functional>
#include <optional>
#include <vector>

#include "sim/collectives/collective.hpp"

namespace dlsim::sim {

class ParameterServer final : public Collective,
                              public std::enable_shared_from_this<ParameterServer> {
 public:
  /// What the server sends back in round r, given the round's mean (which it may
  /// overwrite); runs on the engine thread, so it may deposit models in the recorder
  /// (it times its own math: training.wall.time_math()).
  using Reply = std::function<const models::Vector&(std::uint64_t round, models::Vector& mean)>;

  struct Options {
    std::optional<CompressorSpec> downlink;  // absent: the reply travels in fp32
    Reply reply;                             // empty: the mean itself
  };

  ParameterServer(Training& training, Options options);

  std::unique_ptr<Endpoint> join(int id, WorkerMath& math) override;
  /// Spawns the server (node n).
  void launch(Engine& engine) override;
  int workers_to_simulate() const override { return t_.workers(); }

 private:
  class WorkerEnd;
  Task<void> serve(std::shared_ptr<ParameterServer> self);

  Training& t_;
  Options options_;
  // The format each worker declared for the message it sent last: a worker has at most
  // one round in flight, and the server reads its slot only once that message arrived.
  // (Both sides follow the algorithm's round schedule; the simulator passes the format
  // out of band, as it does the tensor shapes.)
  std::vector<RoundFormat> declared_;
  // Every worker's decoder of the downlink: decoding is const and keeps no state
  // (models/compress/compressor.hpp), so one chain serves all workers and threads, as
  // Training::decoder() does for the uplink (a per-tensor chain of ResNet-50's 107 tensors
  // is about 23 KB: per worker, it was most of a profile run's memory). Null: fp32.
  std::unique_ptr<models::Compressor> downlink_decoder_;
};

}  // namespace dlsim::sim
