#!/usr/bin/env bash
# dlsim sweep under MPI: `mpirun -np K` hands the points out one at a time from a counter
# on rank 0 (a free rank takes the next one), rank 0 keeps runs.csv current while the
# sweep runs, the results equal a sweep without MPI, and --resume reruns only what is
# unfinished. Bad input under mpirun: exit 2 and a single `dlsim: error:` line.
# Skipped (exit 0, message) only when dlsim was built without MPI.
# Usage: sweep_mpi.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

skip_without_mpi
mpirun=(mpirun --allow-run-as-root --oversubscribe -np 2)

cat > "$tmp/base.json" <<'JSON'
{"name": "tiny", "workers": 2,
 "data": {"source": "synthetic-regression", "samples": 200, "features": 5},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 10},
 "stop": {"iterations": 20},
 "metrics": {"every": {"iterations": 5}}}
JSON
grid=(--grid workers=2,3,4 --grid network.bandwidth=1Gbps,10Mbps --repeat 1)

"${mpirun[@]}" "$dlsim" sweep "$tmp/base.json" "${grid[@]}" --jobs 1 --out "$tmp/m" > "$tmp/out"
check "mpirun sweep: one closing line from rank 0" test "$(grep -c '^sweep tiny: 6 runs: 6 done, 0 failed' "$tmp/out")" -eq 1
check "every point done once, in sweep order in runs.csv; no shard indexes" "$py" - "$tmp/m" <<'PY'
import glob, json, os, sys
import pandas as pd
d = sys.argv[1]
full = pd.read_csv(os.path.join(d, "runs.csv"))
assert len(full) == 6 and full["run_id"].is_unique and (full["status"] == "done").all(), full
assert list(full["workers"]) == [2, 2, 3, 3, 4, 4], list(full["workers"])
assert not glob.glob(os.path.join(d, "runs.shard-*")), "ranks wrote shard indexes"
for run in full["run_id"]:
    assert json.load(open(os.path.join(d, run, "summary.json")))["final"]["iteration"] == 20
PY

"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/plain" --quiet
check "MPI sweep == sweep without MPI (but wall_s)" \
  cmp -s <(rev "$tmp/m/runs.csv" | cut -d, -f2- | rev) <(rev "$tmp/plain/runs.csv" | cut -d, -f2- | rev)

stat -c '%n %.9Y' "$tmp"/m/*/summary.json > "$tmp/before"
"${mpirun[@]}" "$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/m" --resume --quiet
check "mpirun --resume on a finished sweep reruns nothing" cmp -s "$tmp/before" <(stat -c '%n %.9Y' "$tmp"/m/*/summary.json)

# Resume after a lost run: only that one runs again (3 ranks, 2 jobs each).
rm "$tmp/m/workers=3_bandwidth=1Gbps/summary.json"
stat -c '%n %.9Y' "$tmp"/m/*/summary.json > "$tmp/before"
mpirun --allow-run-as-root --oversubscribe -np 3 "$dlsim" sweep "$tmp/base.json" "${grid[@]}" \
  --jobs 2 --out "$tmp/m" --resume > "$tmp/out"
check "mpirun --resume: the lost run again, the others kept" \
  test "$(grep -c '^sweep tiny: 6 runs: 6 done (5 already before), 0 failed' "$tmp/out")" -eq 1
check "mpirun --resume: finished runs untouched" \
  cmp -s "$tmp/before" <(stat -c '%n %.9Y' "$tmp"/m/*/summary.json | grep -v 'workers=3_bandwidth=1Gbps')
check "mpirun --resume: the redone run equals the first" \
  cmp -s <(rev "$tmp/m/runs.csv" | cut -d, -f2- | rev) <(rev "$tmp/plain/runs.csv" | cut -d, -f2- | rev)

# Dynamic hand-out: one heavy point first, five light ones. With a fixed stride the rank
# running the heavy point would still owe two light ones; here the other rank takes all
# five, and rank 0's runs.csv shows them done while the heavy one is still running.
# Also with Open MPI's point-to-point one-sided component (osc pt2pt, when installed): there
# a fetch-and-add needs rank 0 to call MPI, which it does on its ticks while it waits for its
# own (heavy) run (MpiPointCounter::serve), as over a network without hardware atomics.
heavy=(--set metrics.every.iterations=1000000 --grid stop.iterations=1500000,20,21,22,23,24)
variants=(default)
components=$(ompi_info 2> /dev/null || true)  # read whole (grep -q could end it early)
if [[ $components == *"MCA osc: pt2pt"* ]]; then variants+=(pt2pt); fi
for v in "${variants[@]}"; do
  osc=()
  [ "$v" = pt2pt ] && osc=(--mca osc pt2pt)
  "${mpirun[@]}" "${osc[@]}" "$dlsim" sweep "$tmp/base.json" "${heavy[@]}" --jobs 1 \
    --out "$tmp/dyn-$v" --quiet &
  sweep_pid=$!
  seen=no
  while kill -0 "$sweep_pid" 2> /dev/null; do
    if [ -f "$tmp/dyn-$v/runs.csv" ] && grep -q '^[^,]*,running,1500000,' "$tmp/dyn-$v/runs.csv" &&
      [ "$(grep -c '^[^,]*,done,' "$tmp/dyn-$v/runs.csv")" -eq 5 ]; then
      seen=yes
      break
    fi
    sleep 0.1
  done
  rc=0
  wait "$sweep_pid" || rc=$?
  check "dynamic hand-out ($v): five light points done while the heavy one ran" test "$seen" = yes
  check "dynamic hand-out ($v): the sweep ends with every point done" \
    test "$rc" -eq 0 -a "$(grep -c '^[^,]*,done,' "$tmp/dyn-$v/runs.csv")" -eq 6
done

rc=0
"${mpirun[@]}" "$dlsim" sweep "$tmp/base.json" --grid workers=2,0 --out "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
check "mpirun bad point: exit 2" test "$rc" -eq 2
check "mpirun bad point: one error line" test "$(grep -c '^dlsim: error: workers: .*sweep point 2 of 2' "$tmp/err")" -eq 1
check "mpirun bad point: nothing written" test ! -e "$tmp/bad"
rc=0
"${mpirun[@]}" "$dlsim" sweep "$tmp/base.json" "${grid[@]}" --shard 0/2 --out "$tmp/bad" > /dev/null 2> "$tmp/err" || rc=$?
check "mpirun with --shard: exit 2" test "$rc" -eq 2
check "mpirun with --shard: message" test "$(grep -c '^dlsim: error: --shard: cannot be combined with mpirun' "$tmp/err")" -eq 1

echo "$passed passed, 0 failed"
