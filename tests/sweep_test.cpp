// The sweep machinery without processes: grid parsing and expansion, run ids, the
// deterministic split among shards/ranks, validation of every point, the runs.csv
// index and the resume truth read from run folders (sim/sweep/).
#include <unistd.h>

#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "run_helpers.hpp"
#include "sim/metrics/atomic_file.hpp"
#include "sim/scenario/input_error.hpp"
#include "sim/sweep/grid.hpp"
#include "sim/sweep/partition.hpp"
#include "sim/sweep/run_id.hpp"
#include "sim/sweep/run_index.hpp"
#include "sim/sweep/sweep_plan.hpp"
#include "sim/sweep/sweep_runner.hpp"

using namespace dlsim::sim;
using nlohmann::json;
namespace fs = std::filesystem;

namespace {

json small_scenario() {
  return json::parse(R"({"name": "tiny", "seed": 7, "workers": 2,
    "model": {"kind": "profile", "parameters": 100, "compute_time": "1ms"},
    "algorithm": {"kind": "sgd", "collective": "parameter-server"},
    "stop": {"iterations": 3}})");
}

// Expects an InputError whose where and what contain the given texts.
template <class F>
void expect_input_error(F&& f, const std::string& where, const std::string& what) {
  try {
    f();
    FAIL("no InputError");
  } catch (const InputError& e) {
    INFO(e.what());
    CHECK(e.where().find(where) != std::string::npos);
    CHECK(e.problem().find(what) != std::string::npos);
  }
}

}  // namespace

TEST_CASE("grid values split at top-level commas only", "[sweep]") {
  using V = std::vector<std::string>;
  CHECK(split_grid_values("1,2,4") == V{"1", "2", "4"});
  CHECK(split_grid_values("1Gbps,10Gbps") == V{"1Gbps", "10Gbps"});
  CHECK(split_grid_values(R"({"kind":"top-k","ratio":0.9},{"kind":"none"})") ==
        V{R"({"kind":"top-k","ratio":0.9})", R"({"kind":"none"})"});
  CHECK(split_grid_values("[4,4],[2,8]") == V{"[4,4]", "[2,8]"});
  CHECK(split_grid_values(R"("a,b","c\",d",e)") == V{R"("a,b")", R"("c\",d")", "e"});
  CHECK(split_grid_values("x") == V{"x"});
}

TEST_CASE("grid option values are JSON when they parse, else strings", "[sweep]") {
  const SweepAxis axis = parse_grid_option(R"(algorithm={"kind":"sgd"},{"kind":"dpsgd"})");
  CHECK(axis.key == "algorithm");
  REQUIRE(axis.values.size() == 2);
  CHECK(axis.values[1] == json{{"kind", "dpsgd"}});
  const SweepAxis mixed = parse_grid_option("network.bandwidth=1Gbps,1e9,true");
  CHECK(mixed.values == std::vector<json>{"1Gbps", 1e9, true});
  CHECK(parse_grid_option("workers=4").values == std::vector<json>{4});

  expect_input_error([] { parse_grid_option("workers"); }, "--grid", "expected KEY=V1,V2");
  expect_input_error([] { parse_grid_option("workers=1,,2"); }, "--grid", "empty value");
  expect_input_error([] { parse_grid_option("=1,2"); }, "--grid", "bad key");
  expect_input_error([] { parse_grid_option("output.dir=a,b"); }, "--grid", "cannot sweep");
  expect_input_error([] { parse_grid_option("sweep.repeat=1,2"); }, "--grid", "cannot sweep");
}

TEST_CASE("the grid is the Cartesian product, last axis fastest, repeats innermost", "[sweep]") {
  const std::vector<SweepAxis> axes{{"a", {1, 2, 3}}, {"b", {"x", "y"}}};
  const auto points = expand_grid(axes, 2);
  REQUIRE(points.size() == 3 * 2 * 2);
  std::set<std::vector<std::size_t>> combos;
  for (std::size_t i = 0; i < points.size(); ++i) {
    // Nested loops a, b, repeat: index = (a·2 + b)·2 + r.
    CHECK(points[i].repeat == int(i % 2));
    CHECK(points[i].choice[1] == (i / 2) % 2);
    CHECK(points[i].choice[0] == i / 4);
    combos.insert({points[i].choice[0], points[i].choice[1], std::size_t(points[i].repeat)});
  }
  CHECK(combos.size() == points.size());
  CHECK(expand_grid({}, 3).size() == 3);
  CHECK(expand_grid({{"a", {}}}, 1).empty());
}

TEST_CASE("the sweep block and --grid merge, and --grid replaces the block's key", "[sweep]") {
  const json block = {{"grid", {{"workers", {2, 4}}, {"network.bandwidth", {"1Gbps"}}}},
                      {"repeat", 1}};
  const auto axes =
      merge_axes(block, {parse_grid_option("workers=8,16,32"), parse_grid_option("seed=1,2")});
  REQUIRE(axes.size() == 3);
  CHECK(axes[0].key == "network.bandwidth");  // block keys (sorted), then the command line
  CHECK(axes[1].key == "workers");
  CHECK(axes[1].values == std::vector<json>{8, 16, 32});
  CHECK(axes[2].key == "seed");
  expect_input_error(
      [] {
        merge_axes(json::object(), {parse_grid_option("a=1"), parse_grid_option("a=2")});
      },
      "--grid", "given twice");
}

TEST_CASE("run ids are readable, sanitized, unique and stable", "[sweep]") {
  CHECK(value_label("1Gbps") == "1Gbps");
  CHECK(value_label(0.5) == "0.5");
  CHECK(value_label(json::array({4, 4})) == "4x4");
  CHECK(value_label(json{{"ratio", 0.9}, {"kind", "top-k"}}) == "top-k-0.9");
  CHECK(sanitize_run_id("a b/c:d") == "a-b-c-d");
  CHECK(sanitize_run_id("../etc") == "etc");
  CHECK(sanitize_run_id("") == "run");
  const std::string long_id = sanitize_run_id(std::string(300, 'x'));
  CHECK(long_id.size() == 100);
  CHECK(long_id != sanitize_run_id(std::string(301, 'x')));  // the hash tells them apart

  const std::vector<SweepAxis> axes{{"network.bandwidth", {"1Gbps", "10Gbps"}},
                                    {"workers", {2, 4}}};
  const auto ids = make_run_ids(axes, expand_grid(axes, 2), 2);
  CHECK(ids[0] == "bandwidth=1Gbps_workers=2_r0");
  CHECK(ids[7] == "bandwidth=10Gbps_workers=4_r1");
  CHECK(std::set<std::string>(ids.begin(), ids.end()).size() == ids.size());
  CHECK(make_run_ids(axes, expand_grid(axes, 2), 2) == ids);  // stable

  // Shared last components keep their full keys; values that sanitize alike get ~2.
  const std::vector<SweepAxis> clash{{"a.kind", {"x"}}, {"b.kind", {"a b", "a/b"}}};
  const auto clash_ids = make_run_ids(clash, expand_grid(clash, 1), 1);
  CHECK(clash_ids[0] == "a.kind=x_b.kind=a-b");
  CHECK(clash_ids[1] == "a.kind=x_b.kind=a-b~2");
  CHECK(make_run_ids({}, expand_grid({}, 1), 1) == std::vector<std::string>{"run"});
}

TEST_CASE("shards and ranks split the points without overlap and cover all", "[sweep]") {
  for (std::size_t total : {0u, 1u, 5u, 12u, 97u}) {
    for (int count = 1; count <= 7; ++count) {
      std::map<std::size_t, int> owners;
      for (int i = 0; i < count; ++i) {
        const Partition part{i, count};
        const auto mine = owned_points(part, total);
        CHECK(mine.size() >= total / std::size_t(count));  // balanced within one point
        CHECK(mine.size() <= total / std::size_t(count) + 1);
        for (std::size_t p : mine) {
          CHECK(part.owns(p));
          ++owners[p];
        }
      }
      CHECK(owners.size() == total);
      for (const auto& [p, n] : owners) CHECK(n == 1);
    }
  }
  CHECK(parse_shard("1/4").index == 1);
  CHECK(parse_shard("1/4").count == 4);
  CHECK(parse_shard("1/4").tag() == "1-of-4");
  expect_input_error([] { parse_shard("4/4"); }, "--shard", "0 <= i < K");
  expect_input_error([] { parse_shard("1-4"); }, "--shard", "expected i/K");
  expect_input_error([] { parse_shard("a/4"); }, "--shard", "expected i/K");
}

TEST_CASE("a plan sets each point's values, seed and folder, and validates them all", "[sweep]") {
  SweepRequest request;
  request.scenario = small_scenario();
  request.scenario["sweep"] = {{"grid", {{"workers", {2, 3}}}}, {"repeat", 2}};
  request.grid.push_back(parse_grid_option("network.bandwidth=1Gbps,100Mbps"));
  const SweepPlan plan = plan_sweep(request);
  CHECK(plan.dir == fs::path("results/tiny-sweep"));
  REQUIRE(plan.points.size() == 2 * 2 * 2);
  const SweepPoint& p = plan.points[5];  // workers 3, 1Gbps, repeat 1
  CHECK(p.run_id == "workers=3_bandwidth=1Gbps_r1");
  CHECK(p.scenario["workers"] == 3);
  CHECK(p.scenario["network"]["bandwidth"] == "1Gbps");
  CHECK(p.seed == 7 + 1);
  CHECK(p.scenario["seed"] == 8);
  CHECK(!p.scenario.contains("sweep"));
  CHECK(p.scenario["output"]["dir"] == "results/tiny-sweep/workers=3_bandwidth=1Gbps_r1");

  request.out = "elsewhere";
  CHECK(plan_sweep(request).dir == fs::path("elsewhere"));
  request.out.reset();
  request.scenario["output"] = {{"dir", "mine"}};
  CHECK(plan_sweep(request).dir == fs::path("mine"));
  request.repeats = 1;
  CHECK(plan_sweep(request).points.size() == 4);

  // One bad value anywhere: an InputError naming the key and the point.
  SweepRequest bad;
  bad.scenario = small_scenario();
  bad.grid.push_back(parse_grid_option("workers=2,0"));
  expect_input_error([&] { plan_sweep(bad); }, "workers", "sweep point 2 of 2: workers=0");
  bad.grid = {parse_grid_option("network.sharing=fair,fiffo")};
  expect_input_error([&] { plan_sweep(bad); }, "network.sharing",
                     "sweep point 2 of 2: network.sharing=\"fiffo\"");
  bad.grid = {};
  bad.scenario["sweep"] = {{"grid", {{"workers", json::array()}}}};
  expect_input_error([&] { plan_sweep(bad); }, "sweep.grid", "");
  bad.scenario["sweep"] = {{"repeat", 0}};
  expect_input_error([&] { plan_sweep(bad); }, "sweep.repeat", "");
}

TEST_CASE("sweep.json round-trips the plan", "[sweep]") {
  const fs::path dir = dlsim::test::fresh_dir("sweep-plan");
  SweepRequest request;
  request.scenario = small_scenario();
  request.grid.push_back(
      parse_grid_option(R"(algorithm={"kind":"sgd"},{"kind":"sgd","step_size":0.5})"));
  request.out = dir;
  const SweepPlan plan = plan_sweep(request);
  write_file_atomically(dir / "sweep.json", plan_to_json(plan).dump(2));
  const SweepPlan back = read_plan(dir);
  CHECK(back.name == "tiny");
  REQUIRE(back.points.size() == 2);
  CHECK(back.points[1].run_id == plan.points[1].run_id);
  CHECK(back.points[1].values == plan.points[1].values);
  CHECK(back.axes[0].key == "algorithm");
  CHECK(!fs::exists(dir / ("sweep.json.tmp." + std::to_string(::getpid()))));
  expect_input_error([&] { read_plan(dir / "nope"); }, "nope", "not a sweep folder");
  fs::remove_all(dir);
}

TEST_CASE("the index has one row per point with status, values and final metrics", "[sweep]") {
  const fs::path dir = dlsim::test::fresh_dir("sweep-index");
  SweepRequest request;
  request.scenario = small_scenario();
  request.grid.push_back(parse_grid_option("network.bandwidth=1Gbps,5Gbps,10Gbps"));
  request.out = dir;
  request.repeats = 1;
  SweepPlan plan = plan_sweep(request);
  plan.points[1].values[0] = "a,\"b\"";  // exercise CSV quoting

  // Folder truth: point 0 finished, point 1 failed, point 2 interrupted (partial).
  const fs::path done = plan.run_dir(plan.points[0]);
  fs::create_directories(done);
  write_file_atomically(done / "metrics.csv", "time_s\n");
  write_file_atomically(done / "summary.json",
                        R"({"final": {"time_s": 0.5, "iteration": 3, "epoch": null,
                          "bits_total": 1200, "bytes_wire": 150, "messages": 6,
                          "train_loss": 0.25, "test_loss": null, "test_accuracy": null,
                          "consensus_distance": 0, "wall_s": 0.01}})");
  fs::create_directories(plan.run_dir(plan.points[1]));
  write_file_atomically(plan.run_dir(plan.points[1]) / "failed.json", "{}");
  fs::create_directories(plan.run_dir(plan.points[2]));
  write_file_atomically(plan.run_dir(plan.points[2]) / "summary.json", "{}");  // no metrics.csv

  std::vector<RunRecord> records;
  for (const auto& p : plan.points) records.push_back(read_run_record(plan.run_dir(p)));
  CHECK(records[0].status == RunStatus::done);
  CHECK(records[1].status == RunStatus::failed);
  CHECK(records[2].status == RunStatus::pending);
  CHECK(run_finished(done));
  CHECK(!run_finished(plan.run_dir(plan.points[2])));

  const std::string csv = index_csv(plan, records, {0, 1, 2});
  const std::string header =
      "run_id,status,network.bandwidth,repeat,seed,time_s,iteration,epoch,bits_total,bytes_wire,"
      "messages,train_loss,test_loss,test_accuracy,consensus_distance,wall_s\n";
  CHECK(csv == header + "bandwidth=1Gbps,done,1Gbps,0,7,0.5,3,,1200,150,6,0.25,,,0,0.01\n" +
                   plan.points[1].run_id + ",failed,\"a,\"\"b\"\"\",0,7,,,,,,,,,,,\n" +
                   plan.points[2].run_id + ",pending,10Gbps,0,7,,,,,,,,,,,\n");
  CHECK(index_csv(plan, records, {2}) ==
        header + plan.points[2].run_id + ",pending,10Gbps,0,7,,,,,,,,,,,\n");

  // merge_sweep rebuilds the same index from sweep.json and the folders.
  write_file_atomically(dir / "sweep.json", plan_to_json(plan).dump());
  const SweepCounts counts = merge_sweep(dir);
  CHECK(counts.total == 3);
  CHECK(counts.done == 1);
  CHECK(counts.failed == 1);
  CHECK(counts.pending == 1);
  CHECK(dlsim::test::read_text(dir / "runs.csv") == csv);
  fs::remove_all(dir);
}

TEST_CASE("an existing sweep folder needs --resume, and a changed scenario is refused", "[sweep]") {
  const fs::path dir = dlsim::test::fresh_dir("sweep-dir");
  SweepRequest request;
  request.scenario = small_scenario();
  request.grid.push_back(parse_grid_option("workers=2,3"));
  request.out = dir / "s";
  const SweepPlan plan = plan_sweep(request);
  SweepOptions options;
  check_output_dir(plan, options);  // absent: fine
  fs::create_directories(plan.dir);
  check_output_dir(plan, options);  // empty: fine
  write_file_atomically(plan.dir / "sweep.json", "{}");
  expect_input_error([&] { check_output_dir(plan, options); }, plan.dir.string(), "add --resume");
  options.resume = true;
  check_output_dir(plan, options);

  // A finished run whose point.json differs from this sweep's point.
  const fs::path run = plan.run_dir(plan.points[0]);
  fs::create_directories(run);
  write_file_atomically(run / "summary.json", R"({"final": {}})");
  write_file_atomically(run / "metrics.csv", "");
  json other = plan.points[0].scenario;
  other["stop"]["iterations"] = 99;
  write_file_atomically(run / "point.json", other.dump());
  expect_input_error([&] { check_output_dir(plan, options); }, run.string(), "different scenario");
  write_file_atomically(run / "point.json", plan.points[0].scenario.dump());
  check_output_dir(plan, options);
  fs::remove_all(dir);
}
