#!/usr/bin/env bash
# One simulation across MPI ranks (`mpirun -np K dlsim run`, docs/design.md §6): a
# decentralized CHOCO-SGD run with top-k on a ring, AdaG-SGD with per-worker metrics and
# the saved models, LPC-SVRG over a parameter server with a compressed downlink, CHOCO-SGP
# (compressed push-sum) on a directed graph and D-PSGD on a torus give, at K = 2 and K = 3
# (oversubscribed) and at K = 2 with --threads 2, the single-process metrics.csv,
# workers.csv, model.npy and summary.json (all but measured fields and the rank counts);
# only rank 0 writes and prints; totals.ranks and totals.per_rank report the ranks. Bad
# input under mpirun: exit 2, one line, nothing written. A killed rank, or SIGINT to
# mpirun, ends the job with a non-zero status and no complete-looking results. The data is
# read by one rank per machine (the others need no data file), or by every rank with
# --data-per-rank; a data file missing where it is read is refused the same way. Node failures and --trace across
# ranks equal the single process too. The memory estimate (and
# --memory-limit) is per rank. The CHOCO and D-PSGD data sets span
# several 4,096-row evaluation chunks, so every rank evaluates a share of each row; both
# also run with data.storage float32.
# Skipped (exit 0, message) only when dlsim was built without MPI.
# Usage: run_mpi.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

skip_without_mpi
mpirun_flags=(--allow-run-as-root --oversubscribe)
mpirun() { command mpirun "${mpirun_flags[@]}" "$@"; }

cat > "$tmp/choco.json" <<'JSON'
{"name": "choco-ring", "workers": 7, "seed": 5,
 "data": {"source": "synthetic-classification", "samples": 20000, "features": 30, "classes": 2,
          "test_fraction": 0.2},
 "model": {"kind": "logistic", "l2": 0.001},
 "algorithm": {"kind": "choco-sgd", "step_size": 0.1, "batch_size": 4, "consensus_step": 0.3,
               "compressor": {"kind": "top-k", "k": 6}},
 "topology": {"kind": "ring"},
 "compute": {"speed": "1GFLOPS", "jitter": 0.2},
 "stop": {"iterations": 60},
 "metrics": {"every": {"iterations": 15}}}
JSON
cat > "$tmp/adag.json" <<'JSON'
{"name": "adag-exponential", "workers": 8, "seed": 2,
 "data": {"source": "synthetic-classification", "samples": 800, "features": 12, "classes": 3},
 "model": {"kind": "softmax"},
 "algorithm": {"kind": "adag-sgd", "step_size": 0.05, "batch_size": 5, "consensus_step": 0.5,
               "compressor": {"kind": "qsgd", "levels": 4}},
 "topology": {"kind": "exponential"},
 "stop": {"iterations": 30},
 "metrics": {"every": {"iterations": 10}, "per_worker": true},
 "output": {"save_model": true}}
JSON
cat > "$tmp/lpc.json" <<'JSON'
{"name": "lpc-svrg-ps", "workers": 5, "seed": 3,
 "data": {"source": "synthetic-regression", "samples": 500, "features": 8},
 "model": {"kind": "least-squares", "l1": 0.001},
 "algorithm": {"kind": "lpc-svrg", "collective": "parameter-server", "step_size": 0.05,
               "batch_size": 5, "epoch_length": 10,
               "downlink_compressor": {"kind": "qsgd", "levels": 8}},
 "stop": {"iterations": 40},
 "metrics": {"every": {"iterations": 10}}}
JSON
cat > "$tmp/pushsum.json" <<'JSON'
{"name": "choco-sgp-directed", "workers": 8, "seed": 9,
 "data": {"source": "synthetic-classification", "samples": 640, "features": 10, "classes": 2},
 "model": {"kind": "logistic"},
 "algorithm": {"kind": "choco-sgp", "step_size": 0.1, "batch_size": 4, "consensus_step": 0.4,
               "compressor": {"kind": "top-k", "k": 3}},
 "topology": {"kind": "directed-exponential"},
 "stop": {"iterations": 30},
 "metrics": {"every": {"iterations": 10}}}
JSON
cat > "$tmp/dpsgd.json" <<'JSON'
{"name": "dpsgd-torus", "workers": 9, "seed": 7,
 "data": {"source": "synthetic-regression", "samples": 18000, "features": 10},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "dpsgd", "step_size": 0.02, "batch_size": 10, "momentum": 0.9},
 "topology": {"kind": "torus", "dims": [3, 3]},
 "network": {"sharing": "fifo"},
 "stop": {"epochs": 2},
 "metrics": {"every": {"epochs": 0.5}}}
JSON

# same_results ONE MANY K: every result file of MANY equals ONE's (measured fields aside).
same_results() {
  "$py" - "$@" <<'PY'
import json, os, sys
one, many, k = sys.argv[1], sys.argv[2], int(sys.argv[3])
def rows(path):  # every column but wall_s
    with open(path) as f:
        lines = f.read().splitlines()
    header = lines[0].split(",")
    col = header.index("wall_s") if "wall_s" in header else -1
    return [",".join(c for i, c in enumerate(l.split(",")) if i != col) for l in lines]
for name in ("metrics.csv", "workers.csv"):
    a, b = os.path.join(one, name), os.path.join(many, name)
    assert os.path.exists(a) == os.path.exists(b), name
    if os.path.exists(a):
        assert rows(a) == rows(b), f"{name} differs"
for root, _, files in os.walk(one):
    for name in files:
        if name.endswith(".npy"):
            rel = os.path.relpath(os.path.join(root, name), one)
            with open(os.path.join(one, rel), "rb") as f, open(os.path.join(many, rel), "rb") as g:
                assert f.read() == g.read(), f"{rel} differs"
MEASURED = ("wall", "rss", "peak", "per_second", "thread_s")
def strip(d):
    if isinstance(d, dict):
        return {k: strip(v) for k, v in d.items()
                if not any(m in k for m in MEASURED) and k not in ("run", "ranks", "per_rank", "threads")}
    return d
s1 = json.load(open(os.path.join(one, "summary.json")))
sk = json.load(open(os.path.join(many, "summary.json")))
assert strip(s1) == strip(sk), "summary.json differs"
assert s1["totals"]["ranks"] == 1 and sk["totals"]["ranks"] == k, sk["totals"]["ranks"]
per = sk["totals"]["per_rank"]
assert [p["rank"] for p in per] == list(range(k)), per
assert all(p["peak_rss_bytes"] > 0 and p["busy_wall_s"] >= 0 for p in per), per
PY
}

for s in choco adag lpc pushsum dpsgd; do
  "$dlsim" run "$tmp/$s.json" --out "$tmp/$s.1" --quiet
  for k in 2 3; do
    mpirun -np $k "$dlsim" run "$tmp/$s.json" --out "$tmp/$s.$k" > "$tmp/stdout"
    check "$s, $k ranks: one closing line (rank 0's)" test "$(grep -c " -> $tmp/$s.$k" "$tmp/stdout")" -eq 1
    check "$s, $k ranks == one process" same_results "$tmp/$s.1" "$tmp/$s.$k" $k
  done
  mpirun -np 2 "$dlsim" run "$tmp/$s.json" --out "$tmp/$s.2t" --threads 2 --quiet
  check "$s, 2 ranks x 2 threads == one process" same_results "$tmp/$s.1" "$tmp/$s.2t" 2
done

# data.storage float32: the ranks share the floats (4 bytes a value) and evaluate their
# rows with the float kernel; the results equal the single process's, and differ from
# float64's (the rounding happened).
for s in choco dpsgd; do
  sed 's/"data": {/"data": {"storage": "float32", /' "$tmp/$s.json" > "$tmp/$s-f32.json"
  "$dlsim" run "$tmp/$s-f32.json" --out "$tmp/$s-f32.1" --quiet
  mpirun -np 2 "$dlsim" run "$tmp/$s-f32.json" --out "$tmp/$s-f32.2" --quiet
  check "$s, float32 storage, 2 ranks == one process" same_results "$tmp/$s-f32.1" "$tmp/$s-f32.2" 2
  check "$s, float32 storage: close to float64's losses, not equal" "$py" - "$tmp/$s.1" "$tmp/$s-f32.1" <<'PY'
import csv, os, sys
def losses(folder):
    with open(os.path.join(folder, "metrics.csv")) as f:
        return [float(r["train_loss"]) for r in csv.DictReader(f)]
a, b = losses(sys.argv[1]), losses(sys.argv[2])
assert len(a) == len(b) and a != b, (a, b)
assert all(abs(x - y) <= 1e-4 * abs(x) for x, y in zip(a, b)), (a, b)
PY
done

# refused NAME WHERE CONTAINS SCENARIO-FILE: under mpirun -np 2, exit 2, exactly one
# `dlsim: error: WHERE...CONTAINS` line, no output folder.
refused() {
  local name=$1 where=$2 contains=$3 file=$4 rc=0
  mpirun -np 2 "$dlsim" run "$file" --out "$tmp/bad-$name" --quiet > /dev/null 2> "$tmp/err" || rc=$?
  check "mpirun $name: exit 2 (got $rc)" test "$rc" -eq 2
  check "mpirun $name: one error line" test "$(grep -c "^dlsim: error: $where.*$contains" "$tmp/err")" -eq 1
  # (mpirun adds its own report of the non-zero exit; dlsim's ranks say nothing else)
  check "mpirun $name: no other line from dlsim" test "$(grep -c '^dlsim' "$tmp/err")" -eq 1
  check "mpirun $name: nothing written" test ! -e "$tmp/bad-$name"
}
sed 's/"workers": 7/"workers": 0/' "$tmp/choco.json" > "$tmp/zero.json"
refused zero-workers workers "" "$tmp/zero.json"

# Node failures (network.faults.fail) across ranks: two workers of a torus stop mid-run;
# metrics.csv, workers.csv (the survivors under their own ids), the saved models and
# summary.json's failures record equal the single process's, the failed workers on
# different ranks (workers 3 and 6: ranks 0 and 1 of 2, ranks 1 and 2 of 3).
for kind in dpsgd choco-sgd sgp; do
  failure_scenario "$kind" > "$tmp/fail-$kind.json"
  "$dlsim" run "$tmp/fail-$kind.json" --out "$tmp/fail-$kind.1" --quiet
  for k in 2 3; do
    mpirun -np $k "$dlsim" run "$tmp/fail-$kind.json" --out "$tmp/fail-$kind.$k" --quiet
    check "$kind with node failures, $k ranks == one process" \
      same_results "$tmp/fail-$kind.1" "$tmp/fail-$kind.$k" $k
  done
  check "$kind with node failures: two workers stopped" "$py" - "$tmp/fail-$kind.1" <<'PY'
import json, os, sys
nodes = json.load(open(os.path.join(sys.argv[1], "summary.json")))["failures"]["nodes"]
assert [n["node"] for n in nodes if n.get("stopped_s") is not None] == [3, 6], nodes
PY
done
# --trace: rank 0 writes it (every rank runs the same engine and network), byte for byte
# the single process's, also when --trace-limit truncates it.
for lim in 1000000 5000; do
  "$dlsim" run "$tmp/choco.json" --out "$tmp/trace.1.$lim" --trace --trace-limit $lim --quiet
  mpirun -np 3 "$dlsim" run "$tmp/choco.json" --out "$tmp/trace.3.$lim" --trace --trace-limit $lim --quiet
  check "--trace --trace-limit $lim: 3 ranks write the single process's trace.json" \
    cmp -s "$tmp/trace.1.$lim/trace.json" "$tmp/trace.3.$lim/trace.json"
done
echo '{"name": ' > "$tmp/broken.json"
refused broken-json "$tmp/broken.json" "" "$tmp/broken.json"

# The data files are read by one rank per machine (the others map its copy from shared
# memory); with --data-per-rank by every rank. A data file missing on one node only (here:
# rank 1 starts in a folder without the relative data path, and --data-per-rank makes it
# read the file as a rank on another machine would): every rank exits 2, rank 1's line is
# the only one, nothing written. Without the flag rank 1 never opens the file: the run
# works and equals the single process; missing on the loading rank 0 it is refused.
mkdir -p "$tmp/node-a" "$tmp/node-b"
"$py" -c "
import random
random.seed(1)
with open('$tmp/node-a/points.csv', 'w') as f:
    f.write('x1,x2,y\n')
    for i in range(100):
        a, b = random.random(), random.random()
        f.write(f'{a},{b},{2 * a - b}\n')
"
cat > "$tmp/csv.json" <<'JSON'
{"name": "csv", "workers": 2,
 "data": {"source": "csv", "path": "points.csv", "label_column": "y"},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "allgather", "step_size": 0.1, "batch_size": 5},
 "metrics": {"eval_samples": 40},
 "stop": {"iterations": 10}}
JSON
exe=$(realpath "$dlsim")  # mpirun looks a relative program up from --wdir
split_run() {  # split_run OUT WDIR_OF_RANK0 WDIR_OF_RANK1 [dlsim run flags...]
  local out=$1 a=$2 b=$3
  shift 3
  mpirun -np 1 --wdir "$a" "$exe" run "$tmp/csv.json" --out "$out" --quiet "$@" : \
    -np 1 --wdir "$b" "$exe" run "$tmp/csv.json" --out "$out" --quiet "$@"
}
rc=0
split_run "$tmp/bad-missing" "$tmp/node-a" "$tmp/node-b" --data-per-rank \
  > /dev/null 2> "$tmp/err" || rc=$?
check "data file missing on one rank: exit 2 (got $rc)" test "$rc" -eq 2
check "data file missing on one rank: one error line" \
  test "$(grep -c '^dlsim: error: data.path: points.csv: cannot read file' "$tmp/err")" -eq 1
check "data file missing on one rank: no other line from dlsim" test "$(grep -c '^dlsim' "$tmp/err")" -eq 1
check "data file missing on one rank: nothing written" test ! -e "$tmp/bad-missing"
rc=0
split_run "$tmp/bad-lead" "$tmp/node-b" "$tmp/node-a" > /dev/null 2> "$tmp/err" || rc=$?
check "data file missing on the loading rank: exit 2 (got $rc)" test "$rc" -eq 2
check "data file missing on the loading rank: its one error line and no other" \
  test "$(grep -c '^dlsim' "$tmp/err")" -eq 1 -a \
  "$(grep -c '^dlsim: error: data.path: points.csv: cannot read file' "$tmp/err")" -eq 1
check "data file missing on the loading rank: nothing written" test ! -e "$tmp/bad-lead"
# The scenario file missing on rank 1 only (a relative path): refused before the ranks of
# the machine meet to share the data, so nobody waits for rank 1 (a timeout would say so).
cp "$tmp/csv.json" "$tmp/node-a/here.json"
rc=0
timeout 120 mpirun "${mpirun_flags[@]}" -np 1 --wdir "$tmp/node-a" "$exe" run here.json --out "$tmp/bad-scenario" --quiet : \
  -np 1 --wdir "$tmp/node-b" "$exe" run here.json --out "$tmp/bad-scenario" --quiet \
  > /dev/null 2> "$tmp/err" || rc=$?
check "scenario file missing on rank 1: exit 2, no hang (got $rc)" test "$rc" -eq 2
check "scenario file missing on rank 1: its one line" \
  test "$(grep -c '^dlsim' "$tmp/err")" -eq 1 -a "$(grep -c '^dlsim: error: here.json: cannot read file' "$tmp/err")" -eq 1
check "scenario file missing on rank 1: nothing written" test ! -e "$tmp/bad-scenario"
(cd "$tmp/node-a" && "$exe" run "$tmp/csv.json" --out "$tmp/csv.1" --quiet)
split_run "$tmp/csv.shared" "$tmp/node-a" "$tmp/node-b"
check "data read by the loading rank only: equals the single process" \
  same_results "$tmp/csv.1" "$tmp/csv.shared" 2
(cd "$tmp/node-a" && mpirun -np 2 "$exe" run "$tmp/csv.json" --out "$tmp/csv.2" --quiet --data-per-rank)
check "--data-per-rank with the file on both ranks: equals the single process" \
  same_results "$tmp/csv.1" "$tmp/csv.2" 2

# The shared copy lives in /dev/shm only until every rank has mapped it. Checked in a
# private mount namespace (`unshare -m`) with a /dev/shm of its own, so that other tests'
# runs do not show: after a run of a 64.1 MB data set in a 200 MB /dev/shm nothing of dlsim
# is left in it; a 40 MB /dev/shm (room for Open MPI's own segments, not for the data) is
# refused with one line, exit 2, nothing written, nothing left. Skipped where mount
# namespaces are not allowed.
cat > "$tmp/big.json" <<'JSON'
{"name": "big", "workers": 2,
 "data": {"source": "synthetic-classification", "samples": 8000, "features": 1000},
 "model": {"kind": "logistic"},
 "algorithm": {"kind": "sgd", "collective": "allgather", "step_size": 0.1, "batch_size": 5},
 "stop": {"iterations": 2}}
JSON
# private_shm SIZE OUT: runs big.json on 2 ranks with a private /dev/shm of SIZE; lists what
# is left in it into OUT.shm; returns the run's exit status.
private_shm() {
  unshare -m bash -c "mount -t tmpfs -o size=$1 tmpfs /dev/shm || exit 99
    mpirun ${mpirun_flags[*]} -np 2 '$exe' run '$tmp/big.json' --out '$2' --quiet; rc=\$?
    ls /dev/shm > '$2.shm'; exit \$rc"
}
if unshare -m true 2> /dev/null; then
  rc=0
  private_shm 200m "$tmp/big.2" > /dev/null 2> "$tmp/err" || rc=$?
  check "private /dev/shm: the run works (got $rc)" test "$rc" -eq 0 -a -s "$tmp/big.2/metrics.csv"
  check "private /dev/shm: no shared data object left after the run" \
    test -z "$(grep '^dlsim-data-' "$tmp/big.2.shm" || true)"
  rc=0
  private_shm 40m "$tmp/bad-shm" > /dev/null 2> "$tmp/err" || rc=$?
  check "/dev/shm too small: exit 2 (got $rc)" test "$rc" -eq 2
  check "/dev/shm too small: one line that says so" \
    test "$(grep -c '^dlsim' "$tmp/err")" -eq 1 -a \
    "$(grep -c "^dlsim: error: data: could not share the data set (64.1 MB) among this machine's ranks: /dev/shm has no room" "$tmp/err")" -eq 1
  check "/dev/shm too small: nothing written" test ! -e "$tmp/bad-shm"
  check "/dev/shm too small: nothing left in it" \
    test -z "$(grep '^dlsim-data-' "$tmp/bad-shm.shm" || true)"
else
  echo "skip: private /dev/shm (unshare -m is not allowed here)"
fi

# The memory estimate across ranks is one rank's (its block of workers' state): a limit
# that one process exceeds is enough for 2 ranks, and the estimate in summary.json is
# the per-rank one.
cat > "$tmp/wide.json" <<'JSON'
{"name": "wide", "workers": 64,
 "data": {"source": "synthetic-regression", "samples": 256, "features": 20000},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "choco-sgd", "step_size": 0.001, "batch_size": 1, "consensus_step": 0.5,
               "compressor": {"kind": "top-k", "k": 100}},
 "topology": {"kind": "ring"},
 "stop": {"iterations": 3}}
JSON
"$dlsim" run "$tmp/wide.json" --out "$tmp/wide.1" --quiet
mpirun -np 2 "$dlsim" run "$tmp/wide.json" --out "$tmp/wide.2" --quiet
estimates=$("$py" -c "
import json
e = [json.load(open(f'$tmp/wide.{k}/summary.json'))['totals']['peak_rss_estimate_bytes'] for k in (1, 2)]
print(int(e[0]), int(e[1]), int((e[0] + e[1]) / 2))")
read -r one two between <<< "$estimates"
between="${between}B"
check "per-rank estimate ($two) below one process's ($one) by the other block's state" \
  test "$two" -lt "$one" -a "$((one - two))" -gt 30000000
# (AddressSanitizer's shadow memory inflates the resident set: the factor is checked in
# plain builds only, as in memory_guard.sh.)
sanitized=$(sanitizer_build)
check "per-rank estimate within a factor 1.5 of each rank's measured peak" "$py" - "$tmp/wide.2" "$sanitized" <<'PY'
import json, os, sys
t = json.load(open(os.path.join(sys.argv[1], "summary.json")))["totals"]
for r in ([] if sys.argv[2] != "0" else t["per_rank"]):
    ratio = t["peak_rss_estimate_bytes"] / r["peak_rss_bytes"]
    assert 1 / 1.5 <= ratio <= 1.5, (r, ratio)
PY
rc=0
"$dlsim" run "$tmp/wide.json" --out "$tmp/bad-wide" --memory-limit "$between" --quiet 2> "$tmp/err" || rc=$?
check "--memory-limit $between: one process refused (exit 2)" test "$rc" -eq 2
mpirun -np 2 "$dlsim" run "$tmp/wide.json" --out "$tmp/wide.2m" --memory-limit "$between" --quiet
check "--memory-limit $between: 2 ranks run, same results" same_results "$tmp/wide.1" "$tmp/wide.2m" 2

# pid_of TEXT [ENV]: the process whose command line contains TEXT (and whose environment
# holds the line ENV), through /proc. Read whole, not piped into grep -q: under pipefail
# its early exit can fail the pipe.
pid_of() {
  local text=$1 env=${2:-} proc environment
  for proc in /proc/[0-9]*; do
    [[ $({ tr '\0' ' ' < "$proc/cmdline"; } 2>/dev/null) == *"$text"* ]] || continue
    environment=$({ tr '\0' '\n' < "$proc/environ"; } 2>/dev/null)
    if [[ -z $env || $'\n'$environment$'\n' == *$'\n'"$env"$'\n'* ]]; then
      echo "${proc#/proc/}"
      return
    fi
  done
}
# long_run OUT: a run of 10^8 iterations under mpirun in the background ($launcher is the
# subshell that waits for it), once rank 0 has written a first row; `timeout` (exit 124)
# ends it if the job does not end itself.
sed 's/"iterations": 60/"iterations": 100000000/' "$tmp/choco.json" > "$tmp/long.json"
long_run() {
  timeout 120 mpirun "${mpirun_flags[@]}" -np 2 "$dlsim" run "$tmp/long.json" --out "$1" --quiet \
    > /dev/null 2>&1 &
  launcher=$!
  for _ in $(seq 100); do [ -s "$1/metrics.csv.partial" ] && break; sleep 0.1; done
}

# A rank that dies ends the job: mpirun exits non-zero and rank 0 leaves no complete-looking
# metrics.csv (only metrics.csv.partial) and no summary.json.
long_run "$tmp/killed"
rank1=$(pid_of "$tmp/killed" OMPI_COMM_WORLD_RANK=1)
check "rank 1 of the long run found" test -n "$rank1"
kill -9 "$rank1"
rc=0
wait "$launcher" || rc=$?
check "a dead rank: mpirun exits non-zero, by itself ($rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "a dead rank: no metrics.csv" test ! -e "$tmp/killed/metrics.csv"
check "a dead rank: no summary.json" test ! -e "$tmp/killed/summary.json"
check "a dead rank: the rows so far are in metrics.csv.partial" test -s "$tmp/killed/metrics.csv.partial"

# SIGINT to mpirun (what Ctrl-C does) ends every rank: no rank waits for another forever.
long_run "$tmp/interrupted"
launcher_pid=$(pid_of "mpirun --allow-run-as-root --oversubscribe -np 2 $dlsim run $tmp/long.json --out $tmp/interrupted")
check "mpirun of the long run found" test -n "$launcher_pid"
kill -INT "$launcher_pid"
rc=0
wait "$launcher" || rc=$?
check "SIGINT to mpirun: non-zero exit, promptly ($rc)" test "$rc" -ne 0 -a "$rc" -ne 124
check "SIGINT to mpirun: no metrics.csv" test ! -e "$tmp/interrupted/metrics.csv"

echo "$passed passed, 0 failed"
