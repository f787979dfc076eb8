#include "sim/metrics/recorder.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "sim/engine/byte_codec.hpp"

namespace dlsim::sim {

namespace {
double seconds_since(Recorder::Clock::time_point t) {
  return std::chrono::duration<double>(Recorder::Clock::now() - t).count();
}
}  // namespace

Recorder::Recorder(Engine& engine, const Network& network, const Evaluator& evaluator,
                   RecorderPlan plan, std::vector<MetricsObserver*> observers,
                   Clock::time_point start)
    : engine_(engine),
      network_(network),
      evaluator_(evaluator),
      plan_(std::move(plan)),
      observers_(std::move(observers)),
      start_(start),
      track_every_iteration_(plan_.metrics.every == MetricsSpec::Every::sim_time ||
                             plan_.stop.sim_time.has_value() || plan_.stop.bits.has_value()),
      next_time_point_(plan_.metrics.every_sim_time) {}

std::int64_t Recorder::iteration_limit() const {
  return plan_.max_iterations.value_or(std::numeric_limits<std::int64_t>::max());
}

bool Recorder::scheduled(std::int64_t k) const {
  if (plan_.max_iterations && k == *plan_.max_iterations) return true;
  switch (plan_.metrics.every) {
    case MetricsSpec::Every::iterations:
      return k % plan_.metrics.every_iterations == 0;
    case MetricsSpec::Every::epochs: {
      // A point at the first iteration that reaches each multiple of `every` epochs.
      if (plan_.train_samples == 0) return false;
      const double per = double(plan_.samples_per_iteration) /
                         (double(plan_.train_samples) * plan_.metrics.every_epochs);
      return std::floor(double(k) * per + 1e-9) > std::floor(double(k - 1) * per + 1e-9);
    }
    case MetricsSpec::Every::sim_time:
      return false;  // decided when k completes
  }
  return false;
}

std::optional<double> Recorder::epoch(std::int64_t k) const {
  if (plan_.train_samples == 0) return std::nullopt;
  // Integer product first: epochs like 1.5 come out exact.
  return double(k * plan_.samples_per_iteration) / double(plan_.train_samples);
}

bool Recorder::wants(std::int64_t k) const {
  return track_every_iteration_ || scheduled(k);
}

void Recorder::deposit(int holder, std::int64_t k, const models::Vector& x) {
  // Workers deposit the same iteration one after another: look it up once.
  auto it =
      last_found_ != pending_.end() && last_found_->first == k ? last_found_ : pending_.find(k);
  if (it == pending_.end()) {  // reuse the node of a completed iteration: no allocation
    if (spare_.empty()) {
      it = pending_.try_emplace(k).first;
    } else {
      spare_.key() = k;
      spare_.mapped() = Snapshot{};
      it = pending_.insert(std::move(spare_)).position;
    }
  }
  last_found_ = it;
  Snapshot& s = it->second;
  if (wants(k)) {
    s.models.resize(plan_.holders);
    s.models[holder] = x;
  }
  if (++s.count < holders_at(k)) return;
  std::vector<models::Vector> complete_models = present_models(k, std::move(s.models));
  last_found_ = pending_.end();
  spare_ = pending_.extract(it);
  complete(k, std::move(complete_models));
}

bool Recorder::present(std::size_t holder, std::int64_t k) const {
  return last_deposit_.empty() || last_deposit_[holder] >= k;
}

int Recorder::holders_at(std::int64_t k) const {
  if (last_deposit_.empty()) return plan_.holders;  // O(1) on every deposit without failures
  return int(std::count_if(last_deposit_.begin(), last_deposit_.end(),
                           [k](std::int64_t last) { return last >= k; }));
}

std::vector<models::Vector> Recorder::present_models(std::int64_t k,
                                                     std::vector<models::Vector>&& models) const {
  if (last_deposit_.empty() || models.empty()) return std::move(models);
  std::vector<models::Vector> present_ones;
  for (std::size_t h = 0; h < models.size(); ++h)
    if (present(h, k)) present_ones.push_back(std::move(models[h]));
  return present_ones;
}

std::vector<int> Recorder::present_holders(std::int64_t k) const {
  std::vector<int> holders;
  for (std::size_t h = 0; h < std::size_t(plan_.holders); ++h)
    if (present(h, k)) holders.push_back(int(h));
  return holders;
}

void Recorder::retire(int holder, std::int64_t last) {
  if (last_deposit_.empty())
    last_deposit_.assign(std::size_t(plan_.holders), std::numeric_limits<std::int64_t>::max());
  last_deposit_[std::size_t(holder)] = last;
  // Iterations the other holders have all deposited already complete now, in order.
  while (true) {
    auto it = pending_.upper_bound(last);
    if (it == pending_.end() || it->second.count < holders_at(it->first)) return;
    const std::int64_t k = it->first;
    std::vector<models::Vector> complete_models = present_models(k, std::move(it->second.models));
    last_found_ = pending_.end();
    pending_.erase(it);
    complete(k, std::move(complete_models));
  }
}

void Recorder::start(std::vector<models::Vector> initial) {
  emit(stamp(0), initial);
}

void Recorder::complete(std::int64_t k, std::vector<models::Vector>&& models) {
  completed_ = k;
  bool row = scheduled(k);
  if (plan_.metrics.every == MetricsSpec::Every::sim_time && engine_.now() >= next_time_point_) {
    row = true;
    const auto period = plan_.metrics.every_sim_time.ps;
    next_time_point_ = SimTime::from_ps((engine_.now().ps / period + 1) * period);
  }
  const bool bits_reached = plan_.stop.bits && network_.counters().bits_total >= *plan_.stop.bits;
  if (row || bits_reached) {
    emit(stamp(k), models);
  } else if (track_every_iteration_) {
    latest_.emplace(stamp(k), std::move(models));
  }
  if (bits_reached) engine_.stop();
  land(false);  // a row evaluated in the background, as soon as it is done

  const double wall = seconds_since(start_);
  if (wall - std::chrono::duration<double>(last_progress_ - start_).count() >= 0.2) {
    last_progress_ = Clock::now();
    Progress p{engine_.now().seconds(), k,   std::nullopt, network_.counters().bits_total,
               fraction_done(k),        wall};
    p.epoch = epoch(k);
    for (auto* o : observers_) o->on_progress(p);
  }
}

void Recorder::emit(const Stamp& at, std::vector<models::Vector>& models) {
  const std::int64_t k = at.iteration;
  std::vector<int> holders = present_holders(k);
  land(true);  // rows reach the observers in order
  last_emitted_ = k;
  latest_.reset();
  const bool values = !models.empty() && models.front().size() > 0;
  // The run's last row has nothing left to overlap with: inline, on the whole pool; without
  // a pool, on the row thread, waited for at once (its scratch is there already: inline,
  // the simulation's thread would hold a second evaluation's).
  const bool last = finishing_ || (plan_.max_iterations && k >= *plan_.max_iterations);
  if (plan_.background && !ranks_ && values && (!last || (!engine_.pool() && row_thread_))) {
    const auto t0 = Clock::now();
    InFlight row{std::make_unique<RowEvaluation>(*this, at, std::move(models), std::move(holders)),
                 {}};
    if (JobPool* const pool = engine_.pool())
      pool->post_beside(row.row->jobs());
    else
      row.thread = (row_thread_ ? *row_thread_ : row_thread_.emplace()).post(row.row->jobs());
    in_flight_.emplace(std::move(row));
    wall_metrics_s_ += seconds_since(t0);  // x̄ and the consensus distance, here
    if (last) land(true);
    return;
  }
  Evaluated r;
  if (ranks_) {
    const auto t0 = Clock::now();
    evaluate_across_ranks(models, holders, r.e, r.each);
    r.seconds = seconds_since(t0);
  } else {
    r = evaluate_here(models, holders);
  }
  wall_metrics_s_ += r.seconds;
  tell(at, r.e, r.each, models, holders);
}

Recorder::Evaluated Recorder::evaluate_here(const std::vector<models::Vector>& models,
                                            std::span<const int> holders) const {
  const auto t0 = Clock::now();
  Evaluated r;
  r.e = evaluator_.evaluate(models);
  if (plan_.metrics.per_worker) r.each = evaluator_.evaluate_each(models, holders);
  r.seconds = seconds_since(t0);
  return r;
}

Recorder::RowEvaluation::RowEvaluation(const Recorder& recorder, const Stamp& at,
                                       std::vector<models::Vector>&& models,
                                       std::vector<int>&& holders)
    : at(at),
      models(std::move(models)),
      holders(std::move(holders)),
      recorder_(recorder),
      passes_(recorder.evaluator_.prepare(this->models)) {
  if (recorder_.plan_.metrics.per_worker) each_.emplace(*this);
  const std::span<ComputeJob* const> passes = passes_->jobs();
  timed_.reserve(passes.size() + 1);  // the jobs point at them
  const std::thread::id here = std::this_thread::get_id();
  if (each_) timed_.emplace_back(*each_, here);  // the largest first
  for (ComputeJob* job : passes) timed_.emplace_back(*job, here);
  for (Timed& t : timed_) jobs_.push_back(&t);
}

void Recorder::RowEvaluation::Timed::run() noexcept {
  const auto t0 = Clock::now();
  job_->run();
  seconds = seconds_since(t0);
  beside = std::this_thread::get_id() != poster_;
}

void Recorder::RowEvaluation::EachJob::run() noexcept {
  try {
    each = row_.recorder_.evaluator_.evaluate_each(row_.models, row_.holders);
  } catch (...) {
    error_ = std::current_exception();
  }
}

void Recorder::RowEvaluation::EachJob::finish() {
  if (error_) std::rethrow_exception(error_);
}

Recorder::Evaluated Recorder::RowEvaluation::result() {
  Evaluated r;
  if (each_) {
    each_->finish();  // rethrows
    r.each = std::move(each_->each);
  }
  r.e = passes_->result();  // rethrows
  for (const Timed& t : timed_)
    if (t.beside) r.seconds += t.seconds;
  return r;
}

Recorder::~Recorder() {
  if (in_flight_ && !in_flight_->thread.valid()) engine_.pool()->withdraw_beside();
}

void Recorder::land(bool wait) {
  if (!in_flight_) return;
  std::future<void>& thread = in_flight_->thread;
  JobPool* const pool = thread.valid() ? nullptr : engine_.pool();
  const bool done = pool ? pool->beside_done()
                         : thread.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
  if (!wait && !done) return;
  const auto t0 = Clock::now();
  if (pool)
    pool->wait_beside();  // evaluates here the chunks no helper has taken
  else
    thread.get();
  wall_metrics_s_ += seconds_since(t0);
  const std::unique_ptr<RowEvaluation> row = std::move(in_flight_->row);
  in_flight_.reset();
  const Evaluated r = row->result();  // rethrows what the evaluation threw
  background_metrics_s_ += r.seconds;
  tell(row->at, r.e, r.each, row->models, row->holders);
}

void Recorder::tell(const Stamp& at, const Evaluation& e, const std::vector<WorkerMetrics>& each,
                    const std::vector<models::Vector>& models, std::span<const int> holders) {
  const std::int64_t k = at.iteration;
  MetricsRow row;
  row.time_s = at.time.seconds();
  row.iteration = k;
  row.epoch = epoch(k);
  const auto& c = at.counters;
  row.bits_total = c.bits_total;
  row.bytes_wire = c.bytes_wire;
  row.messages = c.messages;
  row.train_loss = e.train_loss;
  row.test_loss = e.test_loss;
  row.test_accuracy = e.test_accuracy;
  row.consensus_distance = e.consensus_distance;
  row.wall_s = seconds_since(start_);
  for (auto* o : observers_) o->on_row(row);
  for (auto* o : observers_) o->on_models(row, models, holders);
  if (plan_.metrics.per_worker)
    for (auto* o : observers_) o->on_workers(row, each);
  last_row_ = row;
  if (plan_.stop.target_loss && e.train_loss && *e.train_loss <= *plan_.stop.target_loss)
    engine_.stop();
}

namespace {
void put(ByteWriter& w, const std::optional<double>& v) {
  w.put(v.has_value());
  w.put(v.value_or(0.0));
}
std::optional<double> get_optional(ByteReader& r) {
  const bool present = r.get<bool>();
  const double v = r.get<double>();
  return present ? std::optional<double>(v) : std::nullopt;
}
}  // namespace

void Recorder::evaluate_across_ranks(std::vector<models::Vector>& models,
                                     std::span<const int> holders, Evaluation& e,
                                     std::vector<WorkerMetrics>& each) {
  // The other ranks' models travel one by one, in holder order, straight into their
  // place on rank 0 (no gather buffer: rank 0 holds each of them once). Sizes first.
  const int me = placement_.rank();
  std::vector<std::byte> bytes;
  ByteWriter w(bytes);
  for (std::size_t h = 0; h < models.size(); ++h)
    if (placement_.owner(holders[h]) == me) w.put(std::int64_t(models[h].size()));
  const Gathered sizes = ranks_->gather(bytes);
  std::vector<ByteReader> size_of;
  for (int r = 0; me == 0 && r < ranks_->size(); ++r) size_of.emplace_back(sizes.of(r));
  for (std::size_t h = 0; h < models.size(); ++h) {
    const int owner = placement_.owner(holders[h]);
    if (owner == 0) continue;
    if (me == owner) {
      ranks_->send(0, std::as_bytes(std::span<const double>(models[h].data(),
                                                            std::size_t(models[h].size()))));
      models[h] = models::Vector();  // sent; rank 0 evaluates it
    } else if (me == 0) {
      models[h].resize(size_of[std::size_t(owner)].get<std::int64_t>());
      ranks_->receive(owner, std::as_writable_bytes(std::span<double>(
                                 models[h].data(), std::size_t(models[h].size()))));
    }
  }
  bytes.clear();
  e = evaluator_.evaluate_across(*ranks_, models);  // every rank takes a share of the passes
  if (me == 0) {
    if (plan_.metrics.per_worker) each = evaluator_.evaluate_each(models, holders);
    put(w, e.train_loss);
    put(w, e.test_loss);
    put(w, e.test_accuracy);
    put(w, e.consensus_distance);
    w.put(std::uint64_t(each.size()));
    for (const WorkerMetrics& m : each) {
      w.put(m.worker);
      put(w, m.train_loss);
      put(w, m.test_loss);
      put(w, m.test_accuracy);
      put(w, m.consensus_distance);
    }
  }
  ranks_->broadcast(bytes, 0);
  if (me == 0) return;
  ByteReader in(bytes);
  e.train_loss = get_optional(in);
  e.test_loss = get_optional(in);
  e.test_accuracy = get_optional(in);
  e.consensus_distance = get_optional(in);
  each.resize(std::size_t(in.get<std::uint64_t>()));
  for (WorkerMetrics& m : each) {
    m.worker = in.get<int>();
    m.train_loss = get_optional(in);
    m.test_loss = get_optional(in);
    m.test_accuracy = get_optional(in);
    m.consensus_distance = get_optional(in);
  }
}

void Recorder::finish() {
  finishing_ = true;
  if (completed_ > last_emitted_ && latest_) {
    auto [at, models] = std::move(*latest_);
    emit(at, models);
  }
  land(true);
}

double Recorder::fraction_done(std::int64_t k) const {
  double f = 0;
  if (plan_.max_iterations) f = std::max(f, double(k) / double(*plan_.max_iterations));
  if (plan_.stop.sim_time)
    f = std::max(f, engine_.now().seconds() / plan_.stop.sim_time->seconds());
  if (plan_.stop.bits)
    f = std::max(f, double(network_.counters().bits_total) / double(*plan_.stop.bits));
  return std::min(f, 1.0);
}

}  // namespace dlsim::sim
