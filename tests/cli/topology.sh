#!/usr/bin/env bash
# `dlsim topology` (docs/design.md §9): the --json facts against the docs/algorithms.md §4
# oracles (ring n = 16, uniform weights: λ2 = 0.94925, λmin = −1/3, gap 0.05075),
# the readable table, a large ring in seconds against the closed form, a run's
# summary.json carrying the same facts, and impossible input refused like scenario
# files: exit 2, one line `dlsim: error: <where>: <what>`, nothing on stdout.
# Usage: topology.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
dlsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
py=/usr/bin/python3
failures=0
count=0
pass() { count=$((count + 1)); echo "ok   $1"; }
fail() { count=$((count + 1)); failures=$((failures + 1)); echo "FAIL $1"; }

# --- the oracle, in JSON
if "$dlsim" topology ring --workers 16 --set weights=uniform --json > "$tmp/ring.json" &&
  $py - "$tmp/ring.json" <<'PY'
import json, math, sys
f = json.load(open(sys.argv[1]))
assert sorted(f) == sorted(["nodes", "edges", "directed", "time_varying", "degree_min",
    "degree_max", "diameter", "connected", "weights", "spectral_gap", "lambda2",
    "lambda_min"]), sorted(f)
assert f["nodes"] == 16 and f["edges"] == 16 and f["diameter"] == 8, f
assert f["degree_min"] == f["degree_max"] == 2 and f["connected"] is True, f
assert f["directed"] is False and f["time_varying"] is False and f["weights"] == "uniform"
assert abs(f["lambda2"] - 0.94925) < 5e-6, f["lambda2"]
assert abs(f["lambda_min"] + 1 / 3) < 1e-12, f["lambda_min"]
assert abs(f["spectral_gap"] - 0.05075) < 5e-6, f["spectral_gap"]
PY
then pass "ring 16 --json matches the oracle"; else fail "ring 16 --json"; fi

if "$dlsim" topology ring --workers 32 --json > "$tmp/r32.json" &&
  $py -c "import json,sys; f=json.load(open(sys.argv[1])); assert abs(f['spectral_gap']-0.01281)<5e-6" "$tmp/r32.json"
then pass "ring 32 gap 0.01281"; else fail "ring 32 gap"; fi

# --- the table: one aligned "name value" line per fact
if "$dlsim" topology torus --workers 16 --set dims=[4,4] > "$tmp/table.txt" &&
  grep -Eq '^nodes +16$' "$tmp/table.txt" && grep -Eq '^edges +32$' "$tmp/table.txt" &&
  grep -Eq '^diameter +4$' "$tmp/table.txt" && grep -Eq '^lambda2 +0\.6$' "$tmp/table.txt" &&
  grep -Eq '^weights +metropolis \(doubly stochastic\)$' "$tmp/table.txt" &&
  [ "$(awk '{print index($0, $2)}' "$tmp/table.txt" | sort -u)" = "16" ]
then pass "table output"; else fail "table output:"; cat "$tmp/table.txt"; fi

# --- 100,000 nodes in seconds, against λ2 = (1 + 2cos(2π/n))/3
start=$(date +%s)
if timeout 60 "$dlsim" topology ring --workers 100000 --json > "$tmp/big.json" &&
  $py - "$tmp/big.json" <<'PY'
import json, math, sys
f = json.load(open(sys.argv[1]))
n = 100000
gap = 1 - (1 + 2 * math.cos(2 * math.pi / n)) / 3
assert abs((1 - f["lambda2"]) / gap - 1) < 1e-5, (f["lambda2"], gap)
assert abs(f["lambda_min"] + 1 / 3) < 1e-10 and f["diameter"] == n // 2
PY
then pass "ring 100000 in $(($(date +%s) - start)) s"; else fail "ring 100000"; fi

# --- every kind prints (time-varying and directed included)
for spec in "complete" "star" "grid --set dims=[2,8]" "hypercube" "exponential" \
  "random-regular --set degree=3" "erdos-renyi --set p=0.4" "small-world --set k=4" \
  "one-peer-exponential" "random-matching" "directed-ring" "directed-exponential"; do
  # shellcheck disable=SC2086
  if "$dlsim" topology $spec --workers 16 --json > "$tmp/k.json" &&
    $py -c "import json,sys; f=json.load(open(sys.argv[1])); assert f['connected'] and f['spectral_gap'] > 0" "$tmp/k.json"
  then pass "topology $spec"; else fail "topology $spec"; fi
done

# --- random-regular with degrees near workers - 1 (the pairing used to give up and return
# an empty graph, then the spectrum crashed): a connected d-regular graph, its facts, and
# a run on it
for nd in "200 198" "200 190" "100 98" "50 48" "200 100"; do
  read -r n d <<<"$nd"
  if timeout 120 "$dlsim" topology random-regular --workers "$n" --set degree="$d" --json > "$tmp/rr.json" &&
    $py - "$tmp/rr.json" "$n" "$d" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
n, d = int(sys.argv[2]), int(sys.argv[3])
assert f["nodes"] == n and f["degree_min"] == f["degree_max"] == d, f
assert f["edges"] == n * d // 2 and f["connected"] is True and f["spectral_gap"] > 0, f
PY
  then pass "random-regular n=$n degree=$d"; else fail "random-regular n=$n degree=$d"; fi
done
cat > "$tmp/rr-run.json" <<JSON
{"workers": 50, "model": {"kind": "profile", "parameters": 100}, "algorithm": {"kind": "dpsgd"},
 "topology": {"kind": "random-regular", "degree": 48}, "stop": {"iterations": 2}}
JSON
if "$dlsim" validate "$tmp/rr-run.json" > /dev/null && "$dlsim" run "$tmp/rr-run.json" --out "$tmp/rr-run" --quiet &&
  $py -c "import json,sys; t=json.load(open(sys.argv[1]))['topology']; assert t['degree_min'] == t['degree_max'] == 48 and t['connected']" "$tmp/rr-run/summary.json"
then pass "a run on random-regular n=50 degree=48"; else fail "a run on random-regular n=50 degree=48"; fi

# --- the same facts in a run's summary.json
cat > "$tmp/run.json" <<JSON
{"workers": 16, "model": {"kind": "profile", "parameters": 100}, "algorithm": {"kind": "dpsgd"},
 "topology": {"kind": "hypercube"}, "stop": {"iterations": 2}}
JSON
if "$dlsim" run "$tmp/run.json" --out "$tmp/run" --quiet &&
  "$dlsim" topology hypercube --workers 16 --json > "$tmp/h.json" &&
  $py - "$tmp/run/summary.json" "$tmp/h.json" <<'PY'
import json, sys
summary = json.load(open(sys.argv[1]))["topology"]
facts = json.load(open(sys.argv[2]))
assert summary.pop("kind") == "hypercube"
assert summary == facts, (summary, facts)
PY
then pass "summary.json topology = dlsim topology --json"; else fail "summary.json topology"; fi

# --- refusals
expect_refused() {  # NAME WHERE-PREFIX ARGS...
  local name=$1 where=$2
  shift 2
  count=$((count + 1))
  "$dlsim" topology "$@" > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  local first
  first=$(head -n 1 "$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2 ($first)"; failures=$((failures + 1)); return
  fi
  if [ "$(wc -l < "$tmp/stderr")" -ne 1 ] || [ -s "$tmp/stdout" ]; then
    echo "FAIL $name: expected exactly one line on stderr and nothing on stdout"
    failures=$((failures + 1)); return
  fi
  case "$first" in
    "dlsim: error: $where"*) echo "ok   $name: $first" ;;
    *) echo "FAIL $name: got '$first', expected prefix 'dlsim: error: $where'"; failures=$((failures + 1)) ;;
  esac
}
printf '0 1\n1 2\n2 3\n3 0\n' > "$tmp/square.txt"
printf '0 1\n2 3\n' > "$tmp/split.txt"
printf '0 1\n1 9\n' > "$tmp/range.txt"
expect_refused hypercube_not_power_of_2 "topology.kind: hypercube needs workers to be a power of 2" hypercube --workers 12
expect_refused torus_product "topology.dims: product of dims must equal workers (16)" torus --workers 16 --set dims=[4,3]
expect_refused torus_missing_dims "topology.dims" torus --workers 16
expect_refused edge_list_disconnected "topology.path: $tmp/split.txt: the graph is not connected" edge-list --workers 4 --set path="$tmp/split.txt"
expect_refused edge_list_out_of_range "topology.path: $tmp/range.txt:2: node id 9 is out of range" edge-list --workers 4 --set path="$tmp/range.txt"
expect_refused edge_list_missing "topology.path: cannot read edge list" edge-list --workers 4 --set path="$tmp/none.txt"
expect_refused random_matching_odd "workers: random-matching needs an even number" random-matching --workers 7
expect_refused regular_odd_product "topology.degree: workers x degree must be even" random-regular --workers 7 --set degree=3
expect_refused regular_degree_workers "topology.degree: must be in [1, workers - 1] = [1, 49], got 50" random-regular --workers 50 --set degree=50
expect_refused regular_matching "topology.degree: degree 1 on 6 workers is a perfect matching, never connected" random-regular --workers 6 --set degree=1
expect_refused unknown_kind "topology.kind: unknown kind \"rign\"" rign --workers 4
expect_refused key_of_another_kind "topology.dims: unknown key \"dims\" for kind \"ring\"" ring --workers 4 --set dims=[2,2]
expect_refused bad_weights "topology.weights" ring --workers 4 --set weights=laplacian
expect_refused bad_set "--set: expected KEY=VALUE, got \"weights\"" ring --workers 4 --set weights
expect_refused zero_workers "workers: must be in [1, 16777216], got 0" ring --workers 0
expect_refused missing_workers "command line" ring

# dpsgd refuses uniform weights on a star (not doubly stochastic), run writes nothing.
cat > "$tmp/star.json" <<JSON
{"workers": 8, "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "star", "weights": "uniform"}}
JSON
count=$((count + 1))
"$dlsim" run "$tmp/star.json" --out "$tmp/star-out" --quiet 2> "$tmp/stderr"
rc=$?
if [ $rc -eq 2 ] && [ ! -e "$tmp/star-out" ] &&
  grep -q '^dlsim: error: topology.weights: dpsgd needs doubly stochastic mixing weights.*use metropolis' "$tmp/stderr"; then
  echo "ok   uniform_star_dpsgd: $(cat "$tmp/stderr")"
else
  echo "FAIL uniform_star_dpsgd: rc=$rc $(cat "$tmp/stderr")"; failures=$((failures + 1))
fi
# ...but `dlsim topology` describes it.
if "$dlsim" topology star --workers 8 --set weights=uniform > "$tmp/star.txt" &&
  grep -Eq '^weights +uniform \(row-stochastic\)$' "$tmp/star.txt"
then pass "topology describes uniform star as row-stochastic"; else fail "uniform star table"; fi
if "$dlsim" topology edge-list --workers 4 --set path="$tmp/square.txt" --json > "$tmp/sq.json" &&
  $py -c "import json,sys; f=json.load(open(sys.argv[1])); assert f['edges']==4 and f['diameter']==2" "$tmp/sq.json"
then pass "edge-list square"; else fail "edge-list square"; fi

echo "$((count - failures)) passed, $failures failed"
[ "$failures" -eq 0 ]
