#!/usr/bin/env bash
# Outputs under adverse conditions (issue 22): a write that fails (`ulimit -f`: the
# file-size limit; dlsim ignores SIGXFSZ so the write fails with EFBIG) ends the run
# with exit 1 and one clear line, and leaves no complete-looking metrics.csv and no
# summary; one writer per output folder (flock): a second run or sweep into a folder in
# use is refused with exit 2 naming the holder's pid, a killed holder's lock is never in
# the way, and two shards of one sweep may run side by side but not one shard twice;
# SIGTERM is honoured within one endless iteration; a run whose events would pass the
# clock's end (2^63 - 1 ps) stops there cleanly.
# Usage: writers.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# Background runs and sweeps must not outlive a failed check (a sweep's children die
# with it: PR_SET_PDEATHSIG).
trap 'kill -KILL $(jobs -p) 2> /dev/null; rm -rf "$tmp"' EXIT

quick="$src/scenarios/quickstart.json"
# A run that would take hours (profile model, no math), for holding a folder.
cat > "$tmp/long.json" <<'JSON'
{"name": "long", "workers": 2, "model": {"kind": "profile", "parameters": 10},
 "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "ring"},
 "stop": {"iterations": 1000000000}}
JSON

# wait_for PATTERN: until a file matches the glob PATTERN (at most 20 s).
wait_for() {
  for _ in $(seq 200); do
    compgen -G "$1" > /dev/null && return 0
    sleep 0.1
  done
  return 1
}

# --- write failures ------------------------------------------------------------------
# 40 KB allowed; metrics.csv of a row per iteration for 20,000 iterations is ~2 MB.
(ulimit -f 40; exec "$dlsim" run "$quick" --set 'stop={"iterations": 20000}' \
  --set 'metrics.every={"iterations": 1}' --out "$tmp/full" --quiet) 2> "$tmp/full.err"
code=$?
check "a failed write exits 1 (got $code)" test "$code" -eq 1
check "one error line" test "$(wc -l < "$tmp/full.err")" -eq 1
check "it names the file and the cause: $(cat "$tmp/full.err")" \
  grep -q "^dlsim: error: cannot write .*metrics.csv.partial: File too large" "$tmp/full.err"
check "no complete-looking metrics.csv" test ! -e "$tmp/full/metrics.csv"
check "no summary.json" test ! -e "$tmp/full/summary.json"
check "no temporary file left" bash -c "! ls '$tmp/full' | grep -q tmp"

# summary.json written atomically: a limit that lets metrics.csv through but not the
# summary (metrics.csv has 3 rows here, the summary is ~4 KB).
(ulimit -f 2; exec "$dlsim" run "$quick" --set 'stop={"iterations": 20}' --out "$tmp/summary_full" \
  --quiet) 2> "$tmp/summary.err"
code=$?
check "a failed summary write exits 1 (got $code)" test "$code" -eq 1
check "it names summary.json: $(cat "$tmp/summary.err")" grep -q "summary.json" "$tmp/summary.err"
check "no summary.json, no temporary" bash -c "! ls '$tmp/summary_full' | grep -q summary"

# Standard output that cannot be written is a failure too.
"$dlsim" schema > /dev/full 2> "$tmp/stdout.err"
code=$?
check "schema > /dev/full exits 1 (got $code)" test "$code" -eq 1
check "one line: $(cat "$tmp/stdout.err")" grep -qx "dlsim: error: cannot write standard output" "$tmp/stdout.err"

# --- one writer per folder -------------------------------------------------------------
"$dlsim" run "$tmp/long.json" --out "$tmp/busy" --quiet &
holder=$!
check "the first run starts" wait_for "$tmp/busy/metrics.csv.partial"
"$dlsim" run "$quick" --out "$tmp/busy" --quiet 2> "$tmp/second.err"
code=$?
check "a second run into the folder exits 2 (got $code)" test "$code" -eq 2
check "it names the holder: $(cat "$tmp/second.err")" \
  grep -qx "dlsim: error: --out: output folder $tmp/busy in use by pid $holder (one dlsim writes into a folder at a time)" "$tmp/second.err"
check "the holder's files are untouched" test -e "$tmp/busy/metrics.csv.partial" -a ! -e "$tmp/busy/summary.json"
"$dlsim" sweep "$quick" --out "$tmp/busy" --resume --quiet 2> "$tmp/sweep_busy.err"
code=$?
check "a sweep into a run's folder exits 2 (got $code)" test "$code" -eq 2
check "one line naming the holder: $(cat "$tmp/sweep_busy.err")" grep -q "in use by pid $holder" "$tmp/sweep_busy.err"
kill -KILL "$holder"
wait "$holder" 2> /dev/null
"$dlsim" run "$quick" --out "$tmp/busy" --quiet
code=$?
check "after SIGKILL the stale lock is not in the way (exit $code)" test "$code" -eq 0
check "the new run completed" grep -q '"complete": true' "$tmp/busy/summary.json"

# Sweeps: one sweep per folder; shards share it, one process per shard.
cat > "$tmp/sweep.json" <<'JSON'
{"name": "sw", "workers": 2, "model": {"kind": "profile", "parameters": 10},
 "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "ring"},
 "sweep": {"grid": {"stop.iterations": [1000000000, 2]}}}
JSON
"$dlsim" sweep "$tmp/sweep.json" --out "$tmp/sw" --shard 0/2 --quiet &
shard0=$!
check "shard 0 starts its long point" wait_for "$tmp/sw/*1000000000*/metrics.csv.partial"
"$dlsim" sweep "$tmp/sweep.json" --out "$tmp/sw" --shard 0/2 --quiet 2> "$tmp/shard_twice.err"
code=$?
check "the same shard twice exits 2 (got $code)" test "$code" -eq 2
check "one line: $(cat "$tmp/shard_twice.err")" grep -q "in use by pid $shard0" "$tmp/shard_twice.err"
"$dlsim" sweep "$tmp/sweep.json" --out "$tmp/sw" --shard 1/2 --quiet
code=$?
check "another shard runs alongside (exit $code)" test "$code" -eq 0
"$dlsim" sweep "$tmp/sweep.json" --out "$tmp/sw" --resume --quiet 2> "$tmp/whole_sweep.err"
code=$?
check "a whole sweep next to a shard exits 2 (got $code)" test "$code" -eq 2
"$dlsim" sweep --merge "$tmp/sw" --quiet 2> "$tmp/merge.err"
code=$?
check "merging while a shard runs exits 2 (got $code)" test "$code" -eq 2
kill -KILL "$shard0"
wait "$shard0" 2> /dev/null
check "no temporary index file after SIGKILL" bash -c "! ls -a '$tmp/sw' | grep -q '\.tmp\.'"

# Resume clears the failure marker of a run that is finished now.
"$dlsim" sweep "$quick" --out "$tmp/resume" --quiet
echo '{"run_id": "kind=sgd_r0", "outcome": "exit code 1"}' > "$tmp/resume/kind=sgd_r0/failed.json"
"$dlsim" sweep "$quick" --out "$tmp/resume" --resume --quiet
check "resume removes failed.json of a finished run" test ! -e "$tmp/resume/kind=sgd_r0/failed.json"
check "and keeps the run" test -e "$tmp/resume/kind=sgd_r0/summary.json"

# --- signals inside one endless iteration ------------------------------------------------
cat > "$tmp/drops.json" <<'JSON'
{"name": "drops", "workers": 2, "model": {"kind": "profile", "parameters": 10},
 "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "ring"},
 "network": {"faults": {"drop_probability": 0.99999999}}, "stop": {"iterations": 10}}
JSON
"$dlsim" run "$tmp/drops.json" --out "$tmp/drops" --quiet &
pid=$!
check "the run starts" wait_for "$tmp/drops/metrics.csv.partial"
sleep 0.5
kill -TERM "$pid"
# A guard against a hang, not a timing assertion: the stop request is polled every
# 1,024 events, microseconds apart.
for _ in $(seq 600); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
check "SIGTERM ended the endless iteration" bash -c "! kill -0 $pid 2> /dev/null"
wait "$pid"
code=$?
check "exit code 143 (got $code)" test "$code" -eq 143
check "summary says incomplete" grep -q '"complete": false' "$tmp/drops/summary.json"

# --- the clock's end -----------------------------------------------------------------
# 1 bps: every iteration takes hours; 5,000 of them pass 2^63 ps (106.75 days).
"$dlsim" run "$quick" --set network.bandwidth=1bps --set 'stop={"iterations": 5000}' \
  --out "$tmp/clock" --quiet 2> "$tmp/clock.err"
code=$?
check "a run reaching the clock's end exits 0 (got $code)" test "$code" -eq 0
check "one warning line: $(cat "$tmp/clock.err")" \
  grep -qx "dlsim: warning: the simulated clock reached its end (2^63 - 1 ps, about 106.75 days) after iteration [0-9]*; the run stops there" "$tmp/clock.err"
"$py" - "$tmp/clock" <<'PY'
import json, sys
import pandas as pd
run = sys.argv[1]
m = pd.read_csv(f"{run}/metrics.csv")
s = json.load(open(f"{run}/summary.json"))
assert s["reached_clock_end"] is True
assert s["totals"]["sim_time_s"] == (2**63 - 1) / 1e12, s["totals"]["sim_time_s"]
assert 0 < m["iteration"].iloc[-1] < 5000, m["iteration"].iloc[-1]
assert m["iteration"].iloc[-1] == s["final"]["iteration"]
assert (m["time_s"] <= (2**63 - 1) / 1e12).all() and m["time_s"].is_monotonic_increasing
PY
check "metrics up to the clock's end, summary says so" test $? -eq 0
# A compute speed so small that one gradient takes longer than the clock holds.
"$dlsim" run "$quick" --set compute.speed=1e-300 --out "$tmp/slow" --quiet 2> /dev/null
check "an endless gradient stops at the clock's end" grep -q '"reached_clock_end": true' "$tmp/slow/summary.json"

echo "$passed passed"
