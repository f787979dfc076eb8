#!/usr/bin/env bash
# Crash safety of `dlsim run`: SIGTERM (SIGINT) during a long run stops it after the
# current iteration with exit code 143 (130), a valid metrics.csv holding the rows so
# far (no .partial left), and summary.json with "complete": false whose final row is
# the last CSV row; a run that ends normally says "complete": true; a sweep --resume
# redoes a point whose run was interrupted and keeps the finished ones.
# Usage: signals.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# check_partial DIR: metrics.csv parses, has rows, its last row is summary.json's final
# row, the summary says incomplete, and the run stopped well before its 10^6 epochs.
check_partial() {
  "$py" - "$1" <<'PY'
import json, sys
import pandas as pd
run = sys.argv[1]
m = pd.read_csv(f"{run}/metrics.csv")
s = json.load(open(f"{run}/summary.json"))
assert s["complete"] is False, s["complete"]
assert len(m) >= 2, len(m)
assert m["iteration"].is_monotonic_increasing
assert m["iteration"].iloc[-1] == s["final"]["iteration"], (m["iteration"].iloc[-1], s["final"])
assert m["bits_total"].iloc[-1] == s["final"]["bits_total"]
assert s["final"]["epoch"] < 1e6
PY
}

# interrupt SIGNAL DIR: starts a run that would take hours, waits for its first rows,
# sends SIGNAL, and prints the exit code.
interrupt() {
  local signal=$1 dir=$2
  "$dlsim" run "$src/scenarios/quickstart.json" --set stop.epochs=1000000 --out "$dir" --quiet &
  local pid=$!
  for _ in $(seq 100); do
    [ -f "$dir/metrics.csv.partial" ] && [ "$(wc -l < "$dir/metrics.csv.partial")" -ge 3 ] && break
    sleep 0.1
  done
  sleep 0.3
  kill -s "$signal" "$pid"
  local code=0
  wait "$pid" || code=$?
  echo "$code"
}

code=$(interrupt TERM "$tmp/term")
check "SIGTERM: exit code 143 (got $code)" test "$code" -eq 143
check "SIGTERM: metrics.csv written, no partial file" test -f "$tmp/term/metrics.csv" -a ! -e "$tmp/term/metrics.csv.partial"
check "SIGTERM: valid truncated CSV, summary complete=false" check_partial "$tmp/term"
check "SIGTERM: no temporary summary left" test ! -e "$tmp/term/summary.json.tmp"

code=$(interrupt INT "$tmp/int")
check "SIGINT: exit code 130 (got $code)" test "$code" -eq 130
check "SIGINT: valid truncated CSV, summary complete=false" check_partial "$tmp/int"

"$dlsim" run "$src/scenarios/quickstart.json" --set stop.epochs=1 --out "$tmp/whole" --quiet
check "a finished run says complete=true" \
  "$py" -c "import json,sys; assert json.load(open(sys.argv[1]))['complete'] is True" "$tmp/whole/summary.json"

# A SIGKILLed run cannot write anything more: its flushed rows are in the .partial file.
"$dlsim" run "$src/scenarios/quickstart.json" --set stop.epochs=1000000 --out "$tmp/kill" --quiet &
pid=$!
for _ in $(seq 100); do
  [ -f "$tmp/kill/metrics.csv.partial" ] && [ "$(wc -l < "$tmp/kill/metrics.csv.partial")" -ge 3 ] && break
  sleep 0.1
done
kill -s KILL "$pid"
{ wait "$pid"; } 2> /dev/null || true
check "SIGKILL: flushed rows are whole lines" \
  "$py" -c "import pandas as pd,sys; m=pd.read_csv(sys.argv[1]); assert len(m)>=2 and m.notna()['time_s'].all()" \
  "$tmp/kill/metrics.csv.partial"
check "SIGKILL: no summary.json" test ! -e "$tmp/kill/summary.json"

# --- sweep --resume redoes an interrupted point --------------------------------
cat > "$tmp/base.json" <<'JSON'
{"name": "tiny", "workers": 2,
 "data": {"source": "synthetic-regression", "samples": 200, "features": 5},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 10},
 "stop": {"iterations": 20},
 "metrics": {"every": {"iterations": 5}}}
JSON
"$dlsim" sweep "$tmp/base.json" --grid workers=2,4 --out "$tmp/s" > /dev/null
# Make point workers=4 look interrupted: an earlier final row and "complete": false.
"$py" - "$tmp/s/workers=4/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["complete"] = False
s["final"]["iteration"] = 7
json.dump(s, open(sys.argv[1], "w"))
PY
before=$(stat -c '%.9Y' "$tmp/s/workers=2/summary.json")
"$dlsim" sweep "$tmp/base.json" --grid workers=2,4 --out "$tmp/s" --resume > "$tmp/out"
check "resume: one run redone" grep -q "2 done (1 already before)" "$tmp/out"
check "resume: the interrupted point is complete again" \
  "$py" -c "import json,sys; s=json.load(open(sys.argv[1])); assert s['complete'] is True and s['final']['iteration']==20" \
  "$tmp/s/workers=4/summary.json"
check "resume: the finished point is untouched" test "$(stat -c '%.9Y' "$tmp/s/workers=2/summary.json")" = "$before"

echo "$passed passed, 0 failed"
