#include "sim/run/model_saver.hpp"

#include "sim/metrics/npy_file.hpp"

namespace dlsim::sim {

void ModelSaver::on_models(const MetricsRow&, std::span<const models::Vector> models) {
  latest_.assign(models.begin(), models.end());
}

void ModelSaver::write() const {
  if (latest_.empty()) return;
  // The same sum, in the same order, as the evaluator's average (evaluator.cpp).
  models::Vector mean = latest_.front();
  for (std::size_t i = 1; i < latest_.size(); ++i) mean += latest_[i];
  mean /= double(latest_.size());
  write_npy(out_dir_ / "model.npy", {mean.data(), std::size_t(mean.size())});
  if (!per_worker_) return;
  std::filesystem::create_directories(out_dir_ / "workers");
  for (std::size_t i = 0; i < latest_.size(); ++i) {
    const models::Vector& x = latest_[i];
    write_npy(out_dir_ / "workers" / ("model_" + std::to_string(i) + ".npy"),
              {x.data(), std::size_t(x.size())});
  }
}

}  // namespace dlsim::sim
