#!/usr/bin/env bash
# dlsim sweep end to end: a 2x2 grid writes 4 run folders and a 4-row runs.csv whose
# values and final metrics match the runs; --resume on a finished sweep reruns
# nothing; SIGKILL mid-sweep then --resume ends complete and duplicate-free; shards
# 0/2 + 1/2 + --merge equal the whole sweep; a failing point is reported and redone
# by --resume; bad input exits 2 with one line and writes nothing.
# Usage: sweep.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# A small least-squares problem: each run takes milliseconds.
cat > "$tmp/base.json" <<'JSON'
{"name": "tiny", "workers": 2,
 "data": {"source": "synthetic-regression", "samples": 200, "features": 5},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 10},
 "stop": {"iterations": 20},
 "metrics": {"every": {"iterations": 5}}}
JSON
grid=(--grid workers=2,4 --grid network.bandwidth=1Gbps,10Mbps)

# check_index DIR ROWS: runs.csv has ROWS distinct points, all done, whose varied
# values and final metrics agree with each run's summary.json and metrics.csv.
check_index() {
  "$py" - "$1" "$2" <<'PY'
import json, os, sys
import pandas as pd
d, rows = sys.argv[1], int(sys.argv[2])
df = pd.read_csv(os.path.join(d, "runs.csv"), keep_default_na=False)
assert len(df) == rows, len(df)
assert df["run_id"].is_unique, df["run_id"]
assert (df["status"] == "done").all(), df["status"]
runs = sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e)))
assert sorted(df["run_id"]) == runs, (runs, list(df["run_id"]))
varied = [c for c in df.columns if c not in ("run_id", "status", "repeat", "seed") and
          c not in ("time_s iteration epoch bits_total bytes_wire messages train_loss test_loss "
                    "test_accuracy consensus_distance wall_s").split()]
for _, row in df.iterrows():
    run = os.path.join(d, row["run_id"])
    s = json.load(open(os.path.join(run, "summary.json")))
    for key in varied:
        v = s["scenario"]
        for part in key.split("."):
            v = v[part]
        if isinstance(v, dict):  # a whole object: its given keys, defaults filled in
            given = json.loads(row[key])
            assert all(v[k] == given[k] for k in given), (key, v, given)
        else:
            assert str(v) == str(row[key]), (key, v, row[key])
    assert s["scenario"]["seed"] == row["seed"]
    m = pd.read_csv(os.path.join(run, "metrics.csv"))
    assert m["iteration"].iloc[-1] == row["iteration"] == s["final"]["iteration"]
    assert abs(m["train_loss"].iloc[-1] - float(row["train_loss"])) <= 1e-12 * abs(float(row["train_loss"]))
    assert m["bits_total"].iloc[-1] == row["bits_total"]
    assert not os.path.exists(os.path.join(run, "metrics.csv.partial"))
PY
}

# --- a 2x2 sweep ---------------------------------------------------------------
"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --jobs 2 --out "$tmp/s" > "$tmp/out" 2> "$tmp/err"
check "2x2 sweep: closing line" grep -q "4 runs: 4 done, 0 failed" "$tmp/out"
check "2x2 sweep: nothing on stderr (not a terminal)" test ! -s "$tmp/err"
check "2x2 sweep: 4 run folders with results" test "$(ls -d "$tmp"/s/*/summary.json | wc -l)" -eq 4
check "2x2 sweep: readable run ids" test -f "$tmp/s/workers=4_bandwidth=10Mbps/metrics.csv"
check "2x2 sweep: runs.csv has 4 rows that match the runs" check_index "$tmp/s" 4
check "runs.csv header" grep -q '^run_id,status,workers,network.bandwidth,repeat,seed,time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,test_loss,test_accuracy,consensus_distance,wall_s$' "$tmp/s/runs.csv"
# A point's run equals `dlsim run` with the same values (all columns but wall_s).
"$dlsim" run "$tmp/base.json" --set workers=4 --set network.bandwidth=10Mbps --out "$tmp/single" --quiet
check "a sweep point equals the same dlsim run" cmp -s <(cut -d, -f1-10 "$tmp/single/metrics.csv") \
  <(cut -d, -f1-10 "$tmp/s/workers=4_bandwidth=10Mbps/metrics.csv")
# Runs side by side (--jobs 2) evaluate their metrics inline; the lone run on a thread beside
# the simulation (docs/design.md §5): the rows compared above came both ways.
check "sweep runs with --jobs 2 evaluate metrics inline, a lone run beside" "$py" - "$tmp" <<'PY'
import glob, json, os, sys
tmp = sys.argv[1]
side_by_side = [json.load(open(f))["totals"]["metrics_thread_s"]
                for f in glob.glob(os.path.join(tmp, "s", "*", "summary.json"))]
assert len(side_by_side) == 4 and all(t == 0 for t in side_by_side), side_by_side
alone = json.load(open(os.path.join(tmp, "single", "summary.json")))["totals"]["metrics_thread_s"]
assert alone > 0, alone
PY

# --- --resume on a finished sweep reruns nothing --------------------------------
stamp() { find "$1" -name summary.json -o -name metrics.csv | sort | xargs stat -c '%n %i %.9Y'; }
stamp "$tmp/s" > "$tmp/before"
start=$(date +%s%N)
"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/s" --resume > "$tmp/out"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
stamp "$tmp/s" > "$tmp/after"
check "--resume on a finished sweep rewrites no run" cmp -s "$tmp/before" "$tmp/after"
check "--resume says all were done before" grep -q "4 done (4 already before)" "$tmp/out"
check "--resume on a finished sweep is fast (${elapsed_ms} ms)" test "$elapsed_ms" -lt 3000
check "--resume keeps a complete index" check_index "$tmp/s" 4

# --- an existing sweep without --resume is refused, nothing touched -------------
rc=0
"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/s" 2> "$tmp/err" || rc=$?
check "existing sweep without --resume: exit 2" test "$rc" -eq 2
check "existing sweep: one line suggesting --resume" test "$(wc -l < "$tmp/err")" -eq 1
check "existing sweep: message" grep -q '^dlsim: error: .*/s: already holds a sweep; add --resume' "$tmp/err"
stamp "$tmp/s" > "$tmp/after"
check "refused sweep touched nothing" cmp -s "$tmp/before" "$tmp/after"

# --- bad input: exit 2, one line naming the point and key, nothing written ------
expect_bad() {  # expect_bad PATTERN ARGS...
  local pattern=$1
  shift
  local rc=0
  "$dlsim" sweep "$@" --out "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
  check "bad input ($pattern): exit 2" test "$rc" -eq 2
  check "bad input ($pattern): one line" test "$(wc -l < "$tmp/err")" -eq 1
  check "bad input ($pattern): message $(cat "$tmp/err")" grep -q -- "$pattern" "$tmp/err"
  check "bad input ($pattern): nothing written" test ! -e "$tmp/bad"
}
expect_bad '^dlsim: error: workers: must be .*got 0 (in sweep point 3 of 4: workers=0, network.bandwidth="1Gbps")' \
  "$tmp/base.json" --grid workers=2,0 --grid network.bandwidth=1Gbps,10Mbps
expect_bad '^dlsim: error: network.bandwidth: .*sweep point 2 of 2' "$tmp/base.json" --grid network.bandwidth=1Gbps,fast
expect_bad '^dlsim: error: --grid: expected KEY=V1,V2' "$tmp/base.json" --grid workers
expect_bad '^dlsim: error: --shard: need 0 <= i < K' "$tmp/base.json" --shard 2/2
expect_bad '^dlsim: error: --grid: cannot sweep over output.dir' "$tmp/base.json" --grid output.dir=a,b
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["sweep"]={"grid":{"workers":[]}}; json.dump(d,open(sys.argv[2],"w"))' \
  "$tmp/base.json" "$tmp/empty-grid.json"
expect_bad '^dlsim: error: sweep.grid' "$tmp/empty-grid.json"

# --- the scenario's sweep block: whole-object values, repeat with derived seeds ---
"$py" - "$tmp/base.json" "$tmp/block.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
d["seed"] = 5
d["sweep"] = {"grid": {"algorithm": [
    {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 10},
    {"kind": "sgd", "collective": "allgather", "step_size": 0.02, "batch_size": 10}]},
  "repeat": 2}
json.dump(d, open(sys.argv[2], "w"))
PY
"$dlsim" sweep "$tmp/block.json" --out "$tmp/b" --quiet
check "sweep block: 2 values x 2 repeats" check_index "$tmp/b" 4
check "sweep block: ids, seeds and objects" "$py" - "$tmp/b" <<'PY'
import json, os, sys
import pandas as pd
d = sys.argv[1]
df = pd.read_csv(os.path.join(d, "runs.csv"))
assert list(df["run_id"]) == ["algorithm=sgd-10-parameter-server-0.05_r0",
                              "algorithm=sgd-10-parameter-server-0.05_r1",
                              "algorithm=sgd-10-allgather-0.02_r0",
                              "algorithm=sgd-10-allgather-0.02_r1"], list(df["run_id"])
assert list(df["seed"]) == [5, 6, 5, 6] and list(df["repeat"]) == [0, 1, 0, 1]
assert json.loads(df["algorithm"][2])["collective"] == "allgather"
s = json.load(open(os.path.join(d, df["run_id"][3], "summary.json")))
assert s["scenario"]["algorithm"]["step_size"] == 0.02 and s["scenario"]["seed"] == 6
# Different seeds give different data, hence different losses.
assert df["train_loss"][0] != df["train_loss"][1]
PY

# --- SIGKILL mid-sweep, then --resume -------------------------------------------
# finished_runs DIR: the run folders holding both summary.json and metrics.csv.
finished_runs() {
  local d
  for d in "$1"/*/; do [[ -f $d/summary.json && -f $d/metrics.csv ]] && echo "${d%/}"; done
  return 0
}
# Each run simulates 150k iterations (about half a second); one at a time.
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["stop"]={"iterations":150000}; d["metrics"]={"every":{"iterations":2000}}; json.dump(d,open(sys.argv[2],"w"))' \
  "$tmp/base.json" "$tmp/slow.json"
"$dlsim" sweep "$tmp/slow.json" "${grid[@]}" --jobs 1 --out "$tmp/k" --quiet &
sweep_pid=$!
for _ in $(seq 1 600); do  # until the first run has finished (at most 60 s)
  [[ $(finished_runs "$tmp/k" | wc -l) -ge 1 ]] && break
  sleep 0.1
done
sleep 0.1  # the second run is under way
kill -KILL "$sweep_pid"
wait "$sweep_pid" 2>/dev/null || true
sleep 0.5  # children die with the sweep (PR_SET_PDEATHSIG)
check "killed sweep leaves no child running" test -z "$(pgrep -f -- "--out $tmp/k/" || true)"
finished_before=$(finished_runs "$tmp/k" | wc -l)
check "killed mid-way ($finished_before of 4 finished)" test "$finished_before" -ge 1 -a "$finished_before" -lt 4
check "runs.csv of a killed sweep is complete and duplicate-free" "$py" - "$tmp/k" "$finished_before" <<'PY'
import os, sys
import pandas as pd
df = pd.read_csv(os.path.join(sys.argv[1], "runs.csv"))
assert len(df) == 4 and df["run_id"].is_unique, df
# The index may lag the folders by the run that was being recorded at the kill.
assert int(sys.argv[2]) - 1 <= (df["status"] == "done").sum() <= int(sys.argv[2]), df["status"]
assert set(df["status"]) <= {"done", "running", "pending"}, df["status"]
PY
finished_runs "$tmp/k" | while read -r d; do stamp "$d"; done > "$tmp/k-before"
"$dlsim" sweep "$tmp/slow.json" "${grid[@]}" --jobs 2 --out "$tmp/k" --resume > "$tmp/out"
check "resume after kill: $(cat "$tmp/out")" grep -q "4 runs: 4 done ($finished_before already before), 0 failed" "$tmp/out"
check "resume after kill: every run complete, none duplicated" check_index "$tmp/k" 4
check "resume after kill: finished runs were not redone" \
  test -z "$(comm -23 <(sort "$tmp/k-before") <(stamp "$tmp/k" | sort))"
check "resume after kill: no temporary files left" test -z "$(find "$tmp/k" -name '*.tmp.*' -o -name '*.partial')"

# --- shards 0/2 and 1/2 (concurrently, one folder) + --merge == the whole sweep ---
"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --shard 0/2 --jobs 1 --out "$tmp/sh" --quiet &
p0=$!
"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --shard 1/2 --jobs 1 --out "$tmp/sh" --quiet &
p1=$!
wait "$p0"
wait "$p1"
check "shards split the points without overlap and cover all" "$py" - "$tmp/sh" <<'PY'
import os, sys
import pandas as pd
d = sys.argv[1]
a = pd.read_csv(os.path.join(d, "runs.shard-0-of-2.csv"))
b = pd.read_csv(os.path.join(d, "runs.shard-1-of-2.csv"))
assert not set(a["run_id"]) & set(b["run_id"]), "shards overlap"
assert len(a) == len(b) == 2
assert sorted(set(a["run_id"]) | set(b["run_id"])) == sorted(e for e in os.listdir(d) if os.path.isdir(os.path.join(d, e)))
assert not os.path.exists(os.path.join(d, "runs.csv"))
PY
"$dlsim" sweep --merge "$tmp/sh" > "$tmp/out"
check "--merge: closing line" grep -q "4 runs: 4 done, 0 failed" "$tmp/out"
check "--merge: complete index" check_index "$tmp/sh" 4
check "shards + merge == the whole sweep (but wall_s)" \
  cmp -s <(rev "$tmp/s/runs.csv" | cut -d, -f2- | rev) <(rev "$tmp/sh/runs.csv" | cut -d, -f2- | rev)
rc=0
"$dlsim" sweep --merge "$tmp/single" 2> "$tmp/err" || rc=$?
check "--merge of a run folder: exit 2" test "$rc" -eq 2
check "--merge of a run folder: message" grep -q "not a sweep folder (no sweep.json)" "$tmp/err"

# --- a point that fails at run time: reported, the others run, --resume redoes it --
{ echo x1,x2,label; for i in $(seq 1 40); do echo "$i,$((i % 7)),$((2 * i - i % 7))"; done; } > "$tmp/good.csv"
"$py" -c 'import json,sys; d=json.load(open(sys.argv[1])); d["data"]={"source":"csv","path":"x"}; json.dump(d,open(sys.argv[2],"w"))' \
  "$tmp/base.json" "$tmp/csv.json"
rc=0
"$dlsim" sweep "$tmp/csv.json" --grid "data.path=$tmp/good.csv,$tmp/missing.csv" --jobs 2 --out "$tmp/f" \
  > "$tmp/out" 2> "$tmp/err" || rc=$?
check "failing point: exit 1" test "$rc" -eq 1
check "failing point: reported on stderr" grep -q "^dlsim: sweep: run path=.*missing.csv failed (exit status 2): dlsim: error:" "$tmp/err"
check "failing point: index says done and failed" \
  test "$(cut -d, -f2 "$tmp/f/runs.csv" | tail -n +2 | sort | tr '\n' ' ')" = "done failed "
check "failing point: failed.json written" grep -q '"outcome": "exit status 2"' "$tmp"/f/path=*missing.csv/failed.json
cp "$tmp/good.csv" "$tmp/missing.csv"
"$dlsim" sweep "$tmp/csv.json" --grid "data.path=$tmp/good.csv,$tmp/missing.csv" --out "$tmp/f" --resume --quiet
check "--resume redoes the failed point" test "$(cut -d, -f2 "$tmp/f/runs.csv" | tail -n +2 | sort -u)" = "done"

# --- tools/dlsim-table: the final metrics of a sweep as a table/CSV -------------
"$py" "$src/tools/dlsim-table" "$tmp/s" > "$tmp/table"
check "dlsim-table: header + 4 rows" test "$(wc -l < "$tmp/table")" -eq 5
check "dlsim-table: columns" grep -q '^ *run_id  *status  *workers  *network.bandwidth  *repeat  *seed  *time_s  *iteration  *bits_total  *train_loss' "$tmp/table"
"$py" "$src/tools/dlsim-table" "$tmp/s" --csv --columns train_loss --sort train_loss > "$tmp/table.csv"
check "dlsim-table --csv --columns --sort" "$py" - "$tmp/s/runs.csv" "$tmp/table.csv" <<'PY'
import sys
import pandas as pd
runs, table = pd.read_csv(sys.argv[1]), pd.read_csv(sys.argv[2])
assert list(table.columns) == ["run_id", "status", "workers", "network.bandwidth", "repeat", "seed", "train_loss"]
assert list(table["train_loss"]) == sorted(runs["train_loss"])
PY
rc=0
"$py" "$src/tools/dlsim-table" "$tmp/nothing" 2> "$tmp/err" || rc=$?
check "dlsim-table on a missing folder: exit 2, one line" test "$rc" -eq 2 -a "$(wc -l < "$tmp/err")" -eq 1

echo "$passed passed, 0 failed"
