// The exact fast path of ring all-reduce on a symmetric cluster
// (sim/algorithms/ring_allreduce_symmetric.hpp) against the full simulation of every
// transfer: metrics.csv (every column but wall_s) and the network totals must be
// identical for n = 2..64, several model sizes (divisible by n, ResNet-50's 25,557,032,
// a prime, fewer parameters than workers), fair and fifo, fp32 and fp16 chunks. The
// fast path must have run where its conditions hold (far fewer events), and must switch
// itself off when one fails (a per-link override, a straggler, a sim_time stop).
#include <catch2/catch.hpp>

#include <sstream>

#include "run_helpers.hpp"
#include "sim/algorithms/ring_allreduce_symmetric.hpp"

using nlohmann::json;

namespace {

json scenario(int workers, std::int64_t parameters, const std::string& sharing,
              const std::string& compressor) {
  return json{
      {"workers", workers},
      {"model", {{"kind", "profile"}, {"parameters", parameters}, {"compute_time", "3ms"}}},
      {"algorithm",
       {{"kind", "sgd"}, {"collective", "ring-allreduce"}, {"compressor", {{"kind", compressor}}}}},
      {"network",
       {{"latency", "7us"}, {"bandwidth", "2.5Gbps"}, {"header", "64B"}, {"sharing", sharing}}},
      {"stop", {{"iterations", 3}}},
      {"metrics", {{"every", {{"iterations", 1}}}}}};
}

// metrics.csv without its last column (wall_s).
std::string without_wall(const std::string& csv) {
  std::istringstream in(csv);
  std::string line, out;
  while (std::getline(in, line)) out += line.substr(0, line.rfind(',')) + "\n";
  return out;
}

struct Both {
  dlsim::test::RunOutput fast, full;
};

Both run_both(const json& s) {
  dlsim::sim::set_ring_allreduce_fast_path(true);
  auto fast = dlsim::test::run_scenario(s, "ring-fast");
  dlsim::sim::set_ring_allreduce_fast_path(false);
  auto full = dlsim::test::run_scenario(s, "ring-full");
  dlsim::sim::set_ring_allreduce_fast_path(true);
  return {std::move(fast), std::move(full)};
}

void check_identical(const Both& b) {
  CHECK(without_wall(b.fast.metrics_csv) == without_wall(b.full.metrics_csv));
  for (const char* key : {"bits_total", "bytes_wire", "messages", "sim_time_s"})
    CHECK(b.fast.summary["totals"][key] == b.full.summary["totals"][key]);
}

std::uint64_t events(const dlsim::test::RunOutput& r) {
  return r.summary["totals"]["events"].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("ring all-reduce fast path is bit-identical to the full simulation",
          "[ring_allreduce_fast]") {
  for (int n : {2, 3, 4, 7, 16, 33, 64}) {
    for (std::int64_t parameters : {std::int64_t(1000) * n, std::int64_t(25'557'032),
                                    std::int64_t(1'000'003), std::int64_t(n / 2 + 1)}) {
      for (const char* sharing : {"fair", "fifo"}) {
        const char* compressor = n % 2 ? "fp16" : "none";
        CAPTURE(n, parameters, sharing, compressor);
        const Both b = run_both(scenario(n, parameters, sharing, compressor));
        check_identical(b);
        // Equal chunks always run in lockstep: the fast path must have been taken.
        if (parameters % n == 0) CHECK(events(b.fast) * 4 < events(b.full));
      }
    }
  }
}

TEST_CASE("ring all-reduce fast path switches off when the cluster is not symmetric",
          "[ring_allreduce_fast]") {
  const int n = 8;
  json link = scenario(n, 8000, "fair", "none");
  link["network"]["links"] = json::array({{{"from", 0}, {"to", 1}, {"latency", "70us"}}});
  json straggler = scenario(n, 8000, "fair", "none");
  straggler["compute"]["per_worker"] = json::array({1, 1, 1, 3, 1, 1, 1, 1});
  json sim_time = scenario(n, 8000, "fifo", "none");
  sim_time["stop"] = {{"sim_time", "5ms"}};
  for (const json& s : {link, straggler, sim_time}) {
    const Both b = run_both(s);
    check_identical(b);
    CHECK(events(b.fast) == events(b.full));  // both were full simulations
  }
  // Sanity: the override really changes the timing (the test above is not vacuous).
  const Both plain = run_both(scenario(n, 8000, "fair", "none"));
  CHECK(plain.fast.summary["totals"]["sim_time_s"] !=
        run_both(link).full.summary["totals"]["sim_time_s"]);
}
