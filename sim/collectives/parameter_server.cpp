#include "sim/collectives/parameter_server.hpp"

#include "sim/network/payload_pool.hpp"
#include "sim/network/sized_payload.hpp"

namespace dlsim::sim {

// ---------------------------------------------------------------- a worker's end
class ParameterServer::WorkerEnd final : public Endpoint {
 public:
  WorkerEnd(ParameterServer& ps, int id, WorkerMath& math)
      : ps_(ps), t_(ps.t_), me_(t_.nodes[std::size_t(id)]), id_(id), math_(math) {}

  void contribute(const models::Vector& v, RoundFormat format) override {
    uplink_ = encode_in(math_, v, t_.objective.parameters(), format);
    ps_.declared_[std::size_t(id_)] = format;
  }

  Task<void> exchange() override {
    const NodeId server = t_.workers();
    co_await me_.send(server, round_, std::move(uplink_));
    reply_ = co_await me_.recv(server, round_);
    ++round_;
  }

  void result(models::Vector& out) override {
    if (!t_.computes(id_)) {
      out.resize(0);
    } else if (ps_.downlink_decoder_) {  // one for all workers: decoding is const
      const ScopedWall timer = t_.wall.time_compress();
      ps_.downlink_decoder_->decode(*reply_.payload, out);
    } else {
      math_.decode_fp32(reply_, out);
    }
    reply_.payload.reset();  // the server's buffer is free again
  }

 private:
  ParameterServer& ps_;
  Training& t_;
  Node& me_;
  int id_;
  WorkerMath& math_;
  Payload uplink_;
  Message reply_;
  std::uint64_t round_ = 0;
};

namespace {

// The server's reply with the downlink compressor. Across ranks rank 0 encodes and the
// others receive its bytes (rank_jobs.hpp).
Payload encode_downlink(Training& t, NodeId server, models::Compressor& downlink, Rng& rng,
                        PayloadPool& pool, const models::Vector& reply) {
  auto encode = [&]() -> Payload {
    const ScopedWall timer = t.wall.time_compress();
    const auto d = t.objective.parameters();
    if (!t.objective.has_math()) return sized_payload(downlink.bits_for(d), d);
    auto e = pool.acquire();
    downlink.encode_into(reply, rng, *e);
    return e;
  };
  return t.ranks ? t.ranks->route(server, encode) : encode();
}

}  // namespace

// ---------------------------------------------------------------- the collective
ParameterServer::ParameterServer(Training& training, Options options)
    : t_(training), options_(std::move(options)), declared_(std::size_t(training.workers())) {
  if (options_.downlink)
    downlink_decoder_ = make_compressor(*options_.downlink, t_.objective.tensor_sizes());
}

std::unique_ptr<Endpoint> ParameterServer::join(int id, WorkerMath& math) {
  return std::make_unique<WorkerEnd>(*this, id, math);
}

void ParameterServer::launch(Engine& engine) {
  engine.spawn(serve(shared_from_this()));
}

// Round after round until the run ends (the last round's reply is the last message).
// The server has no last round of its own, by design: it does not know the round count
// (the SVRG kinds add snapshot rounds; stop.sim_time, stop.bits and stop.target_loss end
// a run after a number of rounds known to no one in advance). After the last broadcast
// it waits in recv, which is a mailbox waiter and schedules no event, so Engine::run
// returns as soon as the workers have taken the last reply and finished, just as when a
// stop condition leaves the workers themselves waiting; ~Engine then destroys the
// suspended frame (and with it `self`, the downlink compressor and its buffer pool).
Task<void> ParameterServer::serve(std::shared_ptr<ParameterServer> self) {
  Training& t = self->t_;
  const NodeId id = t.workers();
  Node& me = t.nodes[std::size_t(id)];
  WorkerMath math(t, id);
  std::vector<NodeId> workers(std::size_t(t.workers()));
  for (int i = 0; i < t.workers(); ++i) workers[std::size_t(i)] = i;
  std::unique_ptr<models::Compressor> downlink;
  Rng downlink_rng = make_rng(t.scenario.seed, "compress/downlink", std::uint64_t(id));
  if (self->options_.downlink)
    downlink = make_compressor(*self->options_.downlink, t.objective.tensor_sizes());
  const auto d = t.objective.parameters();
  PayloadPool downlink_pool;  // recycled broadcast buffers (payload_pool.hpp)
  models::Vector sum, received;
  for (std::uint64_t round = 0;; ++round) {
    sum.setZero(t.objective.dimension());  // same size every round: no allocation
    for (NodeId i : workers) {
      Message m = co_await me.recv(i, round);
      decode_in(math, m, self->declared_[std::size_t(i)], received);
      if (received.size() == sum.size()) sum += received;
    }
    {
      const ScopedWall timer = t.wall.time_math();
      sum /= double(t.workers());  // the mean, in place (no temporary)
    }
    const models::Vector& reply = self->options_.reply ? self->options_.reply(round, sum) : sum;
    Payload out;
    if (!downlink) {
      out = math.encode_fp32(reply, d);
    } else {
      out = encode_downlink(t, id, *downlink, downlink_rng, downlink_pool, reply);
    }
    co_await me.broadcast(workers, round, std::move(out));
  }
}

}  // namespace dlsim::sim
