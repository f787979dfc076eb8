#include "sim/run/model_saver.hpp"

#include "sim/metrics/evaluator.hpp"
#include "sim/metrics/npy_file.hpp"

namespace dlsim::sim {

void ModelSaver::on_models(const MetricsRow&, std::span<const models::Vector> models,
                           std::span<const int> holders) {
  latest_.assign(models.begin(), models.end());
  holders_.assign(holders.begin(), holders.end());
}

void ModelSaver::write() const {
  if (latest_.empty()) return;
  const models::Vector mean = average_model(latest_);  // what the last row evaluated
  write_npy(out_dir_ / "model.npy", {mean.data(), std::size_t(mean.size())});
  if (!per_worker_) return;
  std::filesystem::create_directories(out_dir_ / "workers");
  for (std::size_t i = 0; i < latest_.size(); ++i) {
    const models::Vector& x = latest_[i];
    write_npy(out_dir_ / "workers" / ("model_" + std::to_string(holders_[i]) + ".npy"),
              {x.data(), std::size_t(x.size())});
  }
}

}  // namespace dlsim::sim
