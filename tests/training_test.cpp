// End-to-end training through the runner: SGD over every collective and D-PSGD reach
// the least-squares optimum; stop criteria and metrics schedules behave as documented;
// the same scenario gives the same metrics.csv bytes (all but wall_s).
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "run_helpers.hpp"

using nlohmann::json;

namespace {

// Noise-free regression: the optimum has loss 0.
json regression(json algorithm) {
  return json{{"workers", 4},
              {"seed", 3},
              {"data",
               {{"source", "synthetic-regression"},
                {"samples", 400},
                {"features", 8},
                {"noise", 0.0},
                {"condition", 4}}},
              {"model", {{"kind", "least-squares"}}},
              {"algorithm", algorithm},
              {"stop", {{"iterations", 300}}},
              {"metrics", {{"every", {{"iterations", 50}}}}}};
}

std::vector<std::vector<std::string>> parse_csv(const std::string& text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    rows.push_back(cells);
  }
  return rows;
}

std::string without_wall_column(const std::string& csv) {
  std::string out;
  for (const auto& row : parse_csv(csv)) {
    for (std::size_t i = 0; i + 1 < row.size(); ++i) out += row[i] + ",";
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("SGD over every collective and D-PSGD reach the least-squares optimum", "[training]") {
  const json base = {{"step_size", 0.1}, {"batch_size", 100}};
  std::vector<json> algorithms;
  for (const char* c : {"parameter-server", "allgather", "ring-allreduce"}) {
    json a = base;
    a["kind"] = "sgd";
    a["collective"] = c;
    algorithms.push_back(a);
  }
  json d = base;
  d["kind"] = "dpsgd";
  algorithms.push_back(d);
  json m = base;
  m["kind"] = "sgd";
  m["momentum"] = 0.5;
  m["nesterov"] = true;
  algorithms.push_back(m);

  for (const auto& a : algorithms) {
    INFO(a.dump());
    const auto out = dlsim::test::run_scenario(regression(a), "optimum");
    const auto rows = parse_csv(out.metrics_csv);
    REQUIRE(rows.size() == 1 + 7);  // header + iterations 0, 50, ..., 300
    const double first = std::stod(rows[1][6]);
    const double last = out.summary["final"]["train_loss"].get<double>();
    CHECK(first > 1.0);
    CHECK(last < 1e-6 * first);
    CHECK(out.summary["final"]["iteration"] == 300);
    CHECK(out.summary["final"]["epoch"].get<double>() == Approx(300.0 * 100 * 4 / 400));
  }
}

TEST_CASE("D-PSGD reports a consensus distance that shrinks", "[training]") {
  json s = regression({{"kind", "dpsgd"}, {"step_size", 0.1}, {"batch_size", 10}});
  s["workers"] = 8;
  s["model"]["init"] = {{"kind", "zeros"}};
  const auto out = dlsim::test::run_scenario(s, "consensus");
  const auto rows = parse_csv(out.metrics_csv);
  CHECK(rows[1][9] == "0");          // identical initial models
  CHECK(std::stod(rows[2][9]) > 0);  // local steps on different shards diverge
  CHECK(out.summary["final"]["consensus_distance"].get<double>() < std::stod(rows[2][9]));
}

TEST_CASE("the same scenario and seed give the same metrics.csv (all but wall_s)",
          "[training][determinism]") {
  for (const char* kind : {"sgd", "dpsgd"}) {
    json s = regression({{"kind", kind}, {"step_size", 0.05}, {"batch_size", 8}});
    s["compute"] = {{"jitter", 0.3}};
    s["data"]["test_fraction"] = 0.25;
    const auto a = dlsim::test::run_scenario(s, "det-a");
    const auto b = dlsim::test::run_scenario(s, "det-b");
    CHECK(without_wall_column(a.metrics_csv) == without_wall_column(b.metrics_csv));
    s["seed"] = 4;
    const auto c = dlsim::test::run_scenario(s, "det-c");
    CHECK(without_wall_column(a.metrics_csv) != without_wall_column(c.metrics_csv));
  }
}

TEST_CASE("metrics.csv has the documented columns and empty cells where they do not apply",
          "[training]") {
  const auto out =
      dlsim::test::run_scenario(regression({{"kind", "sgd"}, {"batch_size", 10}}), "columns");
  const auto rows = parse_csv(out.metrics_csv);
  CHECK(out.metrics_csv.substr(0, out.metrics_csv.find('\n')) ==
        "time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,test_loss,"
        "test_accuracy,consensus_distance,wall_s");
  for (std::size_t r = 1; r < rows.size(); ++r) {
    REQUIRE(rows[r].size() == 11);
    CHECK(rows[r][7].empty());  // no test set
    CHECK(rows[r][8].empty());  // regression: no accuracy
    CHECK(rows[r][9] == "0");   // centralized
  }
  CHECK(!std::filesystem::exists(out.dir / "metrics.csv.partial"));
}

TEST_CASE("stop criteria: first reached wins", "[training][stop]") {
  SECTION("epochs become ceil(epochs N / (b n)) iterations") {
    json s = regression({{"kind", "sgd"}, {"batch_size", 7}});
    s["stop"] = {{"epochs", 2}};
    const auto out = dlsim::test::run_scenario(s, "epochs");
    CHECK(out.summary["final"]["iteration"] == 29);  // ceil(2 * 400 / 28)
  }
  SECTION("sim_time: the last row is the last iteration completed before the limit") {
    json s = regression({{"kind", "sgd"}, {"batch_size", 10}});
    s["stop"] = {{"sim_time", "1ms"}, {"iterations", 100000}};
    const auto out = dlsim::test::run_scenario(s, "simtime");
    CHECK(out.summary["final"]["time_s"].get<double>() <= 1e-3);
    CHECK(out.summary["totals"]["sim_time_s"].get<double>() == Approx(1e-3));
    CHECK(out.summary["final"]["iteration"].get<int>() > 1);
  }
  SECTION("bits: stops at the first iteration whose traffic reaches the budget") {
    json s = regression({{"kind", "sgd"}, {"collective", "allgather"}, {"batch_size", 10}});
    s["stop"] = {{"bits", "100Kb"}};
    const auto out = dlsim::test::run_scenario(s, "bits");
    // 4 workers x 3 peers x 9 coordinates x 32 bits = 3456 bits per iteration.
    CHECK(out.summary["final"]["iteration"] == 29);  // ceil(100000 / 3456)
    CHECK(out.summary["final"]["bits_total"] == 29 * 3456);
  }
  SECTION("target_loss: checked at every metrics point") {
    json s = regression({{"kind", "sgd"}, {"step_size", 0.1}, {"batch_size", 100}});
    s["stop"] = {{"target_loss", 0.01}, {"iterations", 100000}};
    s["metrics"] = {{"every", {{"iterations", 1}}}};
    const auto out = dlsim::test::run_scenario(s, "target");
    const auto rows = parse_csv(out.metrics_csv);
    CHECK(out.summary["final"]["train_loss"].get<double>() <= 0.01);
    CHECK(std::stod(rows[rows.size() - 2][6]) > 0.01);  // the row before had not reached it
  }
}

TEST_CASE("metrics every epochs and every sim_time", "[training]") {
  SECTION("epochs: a row at the first iteration reaching each multiple") {
    json s = regression({{"kind", "sgd"}, {"batch_size", 10}});
    s["metrics"] = {{"every", {{"epochs", 0.5}}}};
    s["stop"] = {{"epochs", 2}};
    const auto rows = parse_csv(dlsim::test::run_scenario(s, "every-epochs").metrics_csv);
    std::vector<std::string> epochs;
    for (std::size_t r = 1; r < rows.size(); ++r) epochs.push_back(rows[r][2]);
    CHECK(epochs == std::vector<std::string>{"0", "0.5", "1", "1.5", "2"});
  }
  SECTION("sim_time: one row per period crossed, plus the first and the last") {
    json s = regression({{"kind", "sgd"}, {"batch_size", 10}});
    s["metrics"] = {{"every", {{"sim_time", "100us"}}}};
    s["stop"] = {{"sim_time", "1ms"}};
    const auto rows = parse_csv(dlsim::test::run_scenario(s, "every-time").metrics_csv);
    double previous = -1;
    for (std::size_t r = 2; r < rows.size(); ++r) {
      const double t = std::stod(rows[r][0]);
      CHECK(t > previous);
      previous = t;
    }
    CHECK(rows.size() >= 1 + 10);
    CHECK(rows.size() <= 1 + 12);
  }
}

TEST_CASE("a CSV data set with a separate test file trains end to end", "[training][csv]") {
  // y = 2 x1 - x2 + 0.5 exactly: the optimum has loss 0 on both files.
  const auto dir = dlsim::test::fresh_dir("csv");
  auto write = [](const std::filesystem::path& file, int rows, int offset) {
    std::ofstream out(file);
    out << "x1,label,x2\n";
    for (int i = 0; i < rows; ++i) {
      const double x1 = std::sin(i + offset), x2 = std::cos(3.0 * (i + offset));
      out << x1 << "," << 2 * x1 - x2 + 0.5 << "," << x2 << "\n";
    }
  };
  write(dir / "train.csv", 120, 0);
  write(dir / "test.csv", 30, 1000);
  json s = {{"workers", 3},
            {"data",
             {{"source", "csv"},
              {"path", (dir / "train.csv").string()},
              {"test_path", (dir / "test.csv").string()},
              {"normalize", "standard"}}},
            {"algorithm", {{"kind", "sgd"}, {"step_size", 0.3}, {"batch_size", 40}}},
            {"stop", {{"iterations", 400}}}};
  const auto out = dlsim::test::run_scenario(s, "csv-run");
  const auto& f = out.summary["final"];
  CHECK(f["epoch"].get<double>() == Approx(400.0 * 120 / 120));
  CHECK(f["train_loss"].get<double>() < 1e-8);
  CHECK(f["test_loss"].get<double>() < 1e-6);
  CHECK(f["test_accuracy"].is_null());
  std::filesystem::remove_all(dir);
}
