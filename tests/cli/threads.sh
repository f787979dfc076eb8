#!/usr/bin/env bash
# dlsim run --threads N and --profile: bad thread counts are refused (exit 2, one line,
# nothing written); --threads 1, 2 and 0 give byte-identical metrics.csv (but wall_s)
# on a parameter-server and a CHOCO-SGD gossip scenario (also with data.storage
# float32); --profile prints the wall-time
# table on stderr and summary.json totals hold the split.
# Usage: threads.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

scenario='{"workers": 4, "seed": 2,
  "data": {"source": "synthetic-regression", "samples": 800, "features": 10, "test_fraction": 0.25},
  "model": {"kind": "least-squares"},
  "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 8},
  "stop": {"iterations": 10}}'
for bad in -1 1.5 abc "" 2x; do
  expect_refused "threads-$bad" "--threads" "$scenario" "whole number" -- --threads "$bad"
done
expect_refused "threads-huge" "--threads" "$scenario" "at most" -- --threads 100000
refusals_summary || exit 1

gossip='{"workers": 8, "seed": 5,
  "data": {"source": "synthetic-classification", "samples": 1600, "features": 16, "classes": 3,
           "test_fraction": 0.25, "partition": {"kind": "dirichlet", "alpha": 1.0}},
  "model": {"kind": "logistic", "positive_classes": [1]},
  "algorithm": {"kind": "choco-sgd", "step_size": 0.1, "batch_size": 8, "momentum": 0.9,
                "consensus_step": 0.3, "compressor": {"kind": "top-k", "ratio": 0.75}},
  "topology": {"kind": "ring"},
  "compute": {"speed": "1GFLOPS", "jitter": 0.2},
  "stop": {"iterations": 40}, "metrics": {"every": {"iterations": 4}, "test": true}}'
printf '%s' "$scenario" > "$tmp/ps.json"
printf '%s' "$gossip" > "$tmp/gossip.json"
# data.storage float32, with 9,000 training rows: three evaluation chunks on the pool.
sed 's/"samples": 1600,/"samples": 12000, "storage": "float32",/' "$tmp/gossip.json" > "$tmp/gossip32.json"
for name in ps gossip gossip32; do
  for threads in 1 2 0; do
    "$dlsim" run "$tmp/$name.json" --out "$tmp/$name-$threads" --quiet --threads "$threads"
    cut -d, -f1-10 "$tmp/$name-$threads/metrics.csv" > "$tmp/$name-$threads.cut"
  done
  check "$name: --threads 2 gives the metrics of --threads 1" cmp -s "$tmp/$name-1.cut" "$tmp/$name-2.cut"
  check "$name: --threads 0 gives the metrics of --threads 1" cmp -s "$tmp/$name-1.cut" "$tmp/$name-0.cut"
  check "$name: more than the header row" test "$(wc -l < "$tmp/$name-1.cut")" -gt 2
done

"$dlsim" run "$tmp/gossip.json" --out "$tmp/profiled" --quiet --threads 2 --profile \
  > "$tmp/profile.out" 2> "$tmp/profile.err"
check "--profile writes nothing on stdout with --quiet" test ! -s "$tmp/profile.out"
for row in "math" "compression" "metrics evaluation" "engine" "events/s" "peak RSS" "threads"; do
  check "--profile table has a '$row' row" grep -q "^$row" "$tmp/profile.err"
done
check "summary.json totals hold the split" "$py" - "$tmp/profiled" <<'PY'
import json, sys
t = json.load(open(f"{sys.argv[1]}/summary.json"))["totals"]
parts = t["wall_math_s"] + t["wall_compress_s"] + t["wall_metrics_s"] + t["wall_engine_s"]
assert abs(parts - t["wall_s"]) <= 1e-6 * max(1.0, t["wall_s"]), (parts, t)
assert t["threads"] == 2 and t["jobs"] == 8 * 40, t
assert t["events"] > 0 and t["events_per_second"] > 0 and t["peak_rss_bytes"] > 0, t
assert t["jobs_thread_s"] <= 2 * t["wall_s"] * 1.05 + 0.01, t
PY
echo "$passed passed"
