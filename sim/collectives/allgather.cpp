#include "sim/collectives/allgather.hpp"

#include <vector>

namespace dlsim::sim {

namespace {

class AllgatherEnd final : public Endpoint {
 public:
  AllgatherEnd(Training& t, int id, WorkerMath& math)
      : t_(t),
        me_(t.nodes[std::size_t(id)]),
        id_(id),
        math_(math),
        messages_(std::size_t(t.workers())) {
    for (int j = 0; j < t.workers(); ++j)
      if (j != id) others_.push_back(j);
  }

  void contribute(const models::Vector& v, RoundFormat format) override {
    format_ = format;
    size_ = v.size();
    own_ = encode_in(math_, v, t_.objective.parameters(), format);
  }

  Task<void> exchange() override {
    co_await me_.broadcast(others_, round_, own_);
    for (NodeId j : others_) messages_[std::size_t(j)] = co_await me_.recv(j, round_);
    messages_[std::size_t(id_)] = Message{id_, id_, round_, std::move(own_)};
    ++round_;
  }

  void result(models::Vector& out) override {
    out.setZero(size_);
    for (Message& m : messages_) {
      decode_in(math_, m, format_, received_);
      if (received_.size() == out.size()) out += received_;
      m.payload.reset();  // release the round's buffers
    }
    out /= double(t_.workers());
  }

 private:
  Training& t_;
  Node& me_;
  int id_;
  WorkerMath& math_;
  std::vector<NodeId> others_;
  std::vector<Message> messages_;  // the round's, own one included, in worker order
  RoundFormat format_;
  models::Index size_ = 0;
  Payload own_;
  models::Vector received_;
  std::uint64_t round_ = 0;
};

}  // namespace

std::unique_ptr<Endpoint> Allgather::join(int id, WorkerMath& math) {
  return std::make_unique<AllgatherEnd>(t_, id, math);
}

}  // namespace dlsim::sim
