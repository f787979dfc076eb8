#include "sim/network/fifo_sharing.hpp"

#include <algorithm>

namespace dlsim::sim {

FifoSharing::FifoSharing(Engine& engine, const NetworkConfig& config, TransferSink& sink)
    : engine_(engine),
      config_(config),
      sink_(sink),
      egress_queue_(config.nodes()),
      ingress_queue_(config.nodes()) {}

void FifoSharing::add(TransferId id, NodeId src, NodeId dst, double bits) {
  if (id >= jobs_.size()) jobs_.resize(std::size_t(id) + 1);
  jobs_[id] = Job{src, dst, bits, false};
  egress_queue_[src].push_back(id);
  ingress_queue_[dst].push_back(id);
  try_start(id);
}

void FifoSharing::try_start(TransferId id) {
  Job& job = jobs_[id];
  if (job.running || egress_queue_[job.src].front() != id || ingress_queue_[job.dst].front() != id)
    return;
  job.running = true;
  const double rate = std::min({config_.link(job.src, job.dst).bandwidth, config_.egress(job.src),
                                config_.ingress(job.dst)});
  engine_.schedule(engine_.now() + transmission_time(job.bits, rate), this, id);
}

void FifoSharing::on_event(std::uint64_t arg) {
  const auto id = TransferId(arg);
  const Job job = jobs_[id];
  egress_queue_[job.src].pop_front();
  ingress_queue_[job.dst].pop_front();
  if (!egress_queue_[job.src].empty()) try_start(egress_queue_[job.src].front());
  if (!ingress_queue_[job.dst].empty()) try_start(ingress_queue_[job.dst].front());
  sink_.transmitted(id);
}

}  // namespace dlsim::sim
