#!/usr/bin/env bash
# dlsim sweep under MPI: `mpirun -np 2` shares the points between the two ranks
# (rank r takes points r, r+2, ...; no overlap, all covered), each rank writes its
# shard index, rank 0 writes runs.csv, and the results equal a sweep without MPI.
# Bad input under mpirun: exit 2 and a single `dlsim: error:` line.
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
check "ranks split the points without overlap and cover all; rank 0 wrote runs.csv" "$py" - "$tmp/m" <<'PY'
import json, os, sys
import pandas as pd
d = sys.argv[1]
full = pd.read_csv(os.path.join(d, "runs.csv"))
assert len(full) == 6 and full["run_id"].is_unique and (full["status"] == "done").all(), full
order = list(full["run_id"])
shards = [pd.read_csv(os.path.join(d, f"runs.shard-{r}-of-2.csv")) for r in range(2)]
ids = [set(s["run_id"]) for s in shards]
assert not ids[0] & ids[1], "ranks overlap"
assert ids[0] | ids[1] == set(order), "ranks miss points"
for r in range(2):  # rank r owns points r, r+2, r+4 in sweep order
    assert list(shards[r]["run_id"]) == order[r::2], (r, list(shards[r]["run_id"]))
for run in order:
    assert json.load(open(os.path.join(d, run, "summary.json")))["final"]["iteration"] == 20
PY

"$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/plain" --quiet
check "MPI sweep == sweep without MPI (but wall_s)" \
  cmp -s <(rev "$tmp/m/runs.csv" | cut -d, -f2- | rev) <(rev "$tmp/plain/runs.csv" | cut -d, -f2- | rev)

stat -c '%n %.9Y' "$tmp"/m/*/summary.json > "$tmp/before"
"${mpirun[@]}" "$dlsim" sweep "$tmp/base.json" "${grid[@]}" --out "$tmp/m" --resume --quiet
check "mpirun --resume on a finished sweep reruns nothing" cmp -s "$tmp/before" <(stat -c '%n %.9Y' "$tmp"/m/*/summary.json)

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
