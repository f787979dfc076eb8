#!/usr/bin/env bash
# tools/compare-runs, the regression tool that compares two dlsim binaries: the same
# binary twice gives "identical" and exit 0 (quickstart, a CHOCO gossip scenario with
# its sweep grid, threads 1 and 2); folders are searched recursively and non-scenarios
# skipped; a wrapper binary that perturbs one metrics value, one summary total, or the
# exit code makes it report DIFFERENT / FAILED and exit 1, while moving and changing
# the wall_s column or the timing keys of summary.json does not; both runs refusing a
# bad --set is "both refused" (exit 0); bad usage exits 2.
# Usage: compare_runs.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"
tool="$src/tools/compare-runs"
dlsim=$(cd "$(dirname "$dlsim")" && pwd)/$(basename "$dlsim")

# compare EXPECTED_RC LOG args...: runs compare-runs, keeps its output in $tmp/LOG.
compare() {
  local want=$1 log=$2
  shift 2
  "$tool" "$@" > "$tmp/$log" 2>&1
  local rc=$?
  if [ "$rc" -ne "$want" ]; then
    echo "compare-runs exited $rc, expected $want:"; cat "$tmp/$log"; return 1
  fi
}

check "same binary twice: identical, exit 0" compare 0 same --old "$dlsim" --new "$dlsim" \
  --threads 1,2 "$src/scenarios/quickstart.json" "$src/scenarios/examples/choco-gossip-gamma-sweep.json"
check "one line per scenario and thread count, all identical" \
  test "$(grep -c ' identical  \[' "$tmp/same")" -eq 4
check "the summary line counts them" grep -q '^4 identical, 0 different, 0 failed' "$tmp/same"

check "--grid-points runs each point of sweep.grid" compare 0 grid --old "$dlsim" --new "$dlsim" \
  --grid-points "$src/scenarios/examples/choco-gossip-gamma-sweep.json"
check "8 grid points, each identical" grep -q '^8 identical, 0 different' "$tmp/grid"
check "the point is named" grep -q 'consensus_step=0.05\]' "$tmp/grid"

# A folder: *.json searched recursively, non-scenarios skipped.
mkdir -p "$tmp/scen/sub"
cp "$src/scenarios/quickstart.json" "$tmp/scen/a.json"
cp "$src/scenarios/quickstart.json" "$tmp/scen/sub/b.json"
echo "# not a scenario" > "$tmp/scen/README.md"
echo '["not", "a", "scenario"]' > "$tmp/scen/sub/list.json"
check "a folder is searched recursively" compare 0 dir --old "$dlsim" --new "$dlsim" "$tmp/scen"
check "both scenarios of the folder ran" grep -q '^2 identical' "$tmp/dir"
check "the non-scenario JSON is skipped and said so" grep -q 'skipped (not a scenario).*list.json' "$tmp/dir"

# A "new" binary that runs the real one, then spoils its output as $PERTURB says.
cat > "$tmp/perturbed-dlsim" <<SH
#!/usr/bin/env bash
"$dlsim" "\$@"
rc=\$?
out=""; prev=""
for a in "\$@"; do [ "\$prev" = "--out" ] && out=\$a; prev=\$a; done
case "\$PERTURB" in
  value)   sed -i '3s/^\([^,]*,[^,]*,\)[0-9]/\19/' "\$out/metrics.csv" ;;
  summary) "$py" -c 'import json,sys; p=sys.argv[1]+"/summary.json"; s=json.load(open(p)); s["totals"]["events"]+=1; json.dump(s,open(p,"w"))' "\$out" ;;
  wall)    "$py" - "\$out" <<'PY'
import json, sys
d = sys.argv[1]
rows = [line.rstrip("\n").split(",") for line in open(d + "/metrics.csv")]
at = rows[0].index("wall_s")
moved = [[r[at] if i == 0 else "123.5"] + r[:at] + r[at + 1:] for i, r in enumerate(rows)]
open(d + "/metrics.csv", "w").write("".join(",".join(r) + "\n" for r in moved))
s = json.load(open(d + "/summary.json"))
for k in list(s["totals"]):
    if "wall" in k or "rss" in k or "per_second" in k or "thread_s" in k:
        s["totals"][k] = 0.5
s["final"]["wall_s"] = 99.0
json.dump(s, open(d + "/summary.json", "w"))
PY
  ;;
  fail)    echo "dlsim: error: spoiled" >&2; exit 3 ;;
esac
exit \$rc
SH
chmod +x "$tmp/perturbed-dlsim"
q="$src/scenarios/quickstart.json"

PERTURB=value check "a perturbed metrics value: exit 1" compare 1 value \
  --old "$dlsim" --new "$tmp/perturbed-dlsim" "$q"
check "... reported as DIFFERENT at its row and column" \
  grep -q 'DIFFERENT (metrics.csv: first differing row 2, column epoch' "$tmp/value"
check "... and counted" grep -q '^0 identical, 1 different, 0 failed' "$tmp/value"

PERTURB=summary check "a perturbed summary total: exit 1" compare 1 summary \
  --old "$dlsim" --new "$tmp/perturbed-dlsim" "$q"
check "... names the key" grep -q 'DIFFERENT (summary.totals.events: old' "$tmp/summary"

PERTURB=wall check "wall_s moved and changed, timing keys changed: still identical" compare 0 wall \
  --old "$dlsim" --new "$tmp/perturbed-dlsim" "$q"

PERTURB=fail check "a failing new binary: exit 1" compare 1 fail \
  --old "$dlsim" --new "$tmp/perturbed-dlsim" "$q"
check "... reported as FAILED with both exit codes" grep -q 'FAILED old rc=0 new rc=3' "$tmp/fail"

check "both refusing a bad --set: exit 0" compare 0 refused --old "$dlsim" --new "$dlsim" \
  --set workers=0 "$q"
check "... reported as both refused, with the message" \
  grep -q 'both refused: dlsim: error: workers' "$tmp/refused"

check "--keep keeps both run folders" compare 0 keep --old "$dlsim" --new "$dlsim" \
  --keep "$tmp/kept" "$q"
check "... with their metrics.csv" test -s "$tmp/kept/$(ls "$tmp/kept")/old/metrics.csv" -a \
  -s "$tmp/kept/$(ls "$tmp/kept")/new/metrics.csv"

check "a missing binary is bad usage (exit 2)" compare 2 usage --old "$tmp/nope" --new "$dlsim" "$q"
check "... with one error line" grep -q '^compare-runs: error: --old' "$tmp/usage"
"$tool" --help > "$tmp/help"
check "--help documents the options" grep -q -- "--iterations" "$tmp/help"

echo "$passed passed, 0 failed"
