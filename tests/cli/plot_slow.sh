#!/usr/bin/env bash
# End-to-end test of tools/dlsim-plot on hand-made run and sweep folders.
# Usage: bash tests/cli/plot.sh <path-to-dlsim-binary> <source-dir>
# Most run folders are written by hand; the last part plots a real `dlsim run`
# folder and a real `dlsim sweep` folder and checks the PNG and SVG files.
# KEEP_TMP=1 keeps the temporary folder (plots included) for inspection;
# KEEP_PNG=FILE copies the real sweep's PNG to FILE.
set -euo pipefail

DLSIM=${1:?usage: plot.sh <dlsim-binary> <source-dir>}
SRC=${2:?usage: plot.sh <dlsim-binary> <source-dir>}
PY=/usr/bin/python3
PLOT="$SRC/tools/dlsim-plot"

if ! "$PY" -c 'import matplotlib, pandas' 2>/dev/null; then
  echo "plot.sh: $PY lacks matplotlib/pandas (apt-get install python3-matplotlib python3-pandas)" >&2
  exit 1
fi

TMP=$(mktemp -d)
trap '[[ -n ${KEEP_TMP:-} ]] || rm -rf "$TMP"' EXIT
export MPLCONFIGDIR="$TMP/mplconfig"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok:   $*"; }

plot() { "$PY" "$PLOT" "$@"; }

HEADER='time_s,iteration,epoch,bits_total,bytes_wire,messages,train_loss,test_loss,test_accuracy,consensus_distance,wall_s'

# make_run DIR NAME WORKERS BANDWIDTH COLLECTIVE  (metrics rows on stdin, header added)
make_run() {
  local dir=$1 name=$2 workers=$3 bw=$4 coll=$5
  mkdir -p "$dir"
  { echo "$HEADER"; cat; } > "$dir/metrics.csv"
  cat > "$dir/summary.json" <<EOF
{
  "scenario": {
    "name": "$name",
    "description": "hand-made test run",
    "seed": 1,
    "workers": $workers,
    "data": {"source": "synthetic-regression", "samples": 1000},
    "model": {"kind": "linear", "l2": 0.0001},
    "algorithm": {"kind": "sgd", "collective": "$coll", "step_size": 0.1,
                  "compressor": {"kind": "none"}},
    "network": {"latency": "5us", "bandwidth": "$bw", "header": "64B"},
    "stop": {"epochs": 2},
    "output": {"dir": "$dir"}
  },
  "final": {},
  "totals": {"events": 10, "messages": 4},
  "topology": {"kind": "star"},
  "version": "test"
}
EOF
}

# --- two runs differing in network.bandwidth (test_accuracy partly empty) ---
make_run "$TMP/runs/slow" slow 8 1Gbps parameter-server <<'EOF'
0,0,0,0,0,0,2.5,2.6,,0,0.01
0.5,10,0.5,1000000,130000,16,1.2,1.3,,0,0.02
1.0,20,1.0,2000000,260000,32,0.6,0.7,0.71,0,0.03
1.5,30,1.5,3000000,390000,48,0.3,0.4,,0,0.04
2.0,40,2.0,4000000,520000,64,0.15,0.25,0.85,0,0.05
EOF
make_run "$TMP/runs/fast" fast 8 10Gbps parameter-server <<'EOF'
0,0,0,0,0,0,2.5,2.6,,0,0.01
0.1,10,0.5,1000000,130000,16,1.1,1.2,,0,0.02
0.2,20,1.0,2000000,260000,32,0.5,0.6,0.74,0,0.03
0.3,30,1.5,3000000,390000,48,0.25,0.35,,0,0.04
0.4,40,2.0,4000000,520000,64,0.1,0.2,0.88,0,0.05
EOF

# PNG: valid magic bytes, non-trivial size, sensible width.
plot "$TMP/runs/slow" "$TMP/runs/fast" --out "$TMP/out/png/loss.png" 2>"$TMP/err"
png="$TMP/out/png/loss.png"
if [[ -f $png ]]; then
  magic=$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')
  size=$(stat -c %s "$png")
  width=$((16#$(od -An -tx1 -j16 -N4 "$png" | tr -d ' \n')))
  [[ $magic == 89504e470d0a1a0a ]] && pass "PNG magic bytes" || fail "PNG magic is $magic"
  ((size > 10000)) && pass "PNG size $size bytes" || fail "PNG too small ($size bytes)"
  ((width >= 400)) && pass "PNG width $width px" || fail "PNG width $width px"
else
  fail "PNG not written (parent folder should be created)"
fi

# SVG: text kept as text, contains both labels, x label for --x time.
svg="$TMP/out/acc.svg"
plot "$TMP/runs/slow" "$TMP/runs/fast" --x time --y test_accuracy --out "$svg"
if [[ -f $svg ]] && head -c 400 "$svg" | grep -q '<svg'; then
  pass "SVG written (text kept as <text> elements)"
  grep -q '>bandwidth=1Gbps</text>' "$svg" && pass "SVG label bandwidth=1Gbps" || fail "SVG lacks bandwidth=1Gbps"
  grep -q '>bandwidth=10Gbps</text>' "$svg" && pass "SVG label bandwidth=10Gbps" || fail "SVG lacks bandwidth=10Gbps"
  grep -q '>simulated time \[s\]</text>' "$svg" && pass "SVG x label" || fail "SVG lacks 'simulated time [s]'"
  grep -q '>test accuracy</text>' "$svg" && pass "SVG y label" || fail "SVG lacks 'test accuracy'"
else
  fail "SVG not written"
fi

# --print: empty test_accuracy rows are skipped, numbers exact, curve labels.
out=$(plot "$TMP/runs/slow" "$TMP/runs/fast" --x iteration --y test_accuracy --print --out "$TMP/out/p.png")
expected='label,iteration,test_accuracy
bandwidth=1Gbps,20,0.71
bandwidth=1Gbps,40,0.85
bandwidth=10Gbps,20,0.74
bandwidth=10Gbps,40,0.88'
[[ $out == "$expected" ]] && pass "--print skips empty y cells" || fail "--print gave:
$out"

# Default --x is bits (column bits_total), default --y train_loss.
out=$(plot "$TMP/runs/slow" --print --out "$TMP/out/single.png")
out=$(sed -n 1,3p <<<"$out")
expected='label,bits_total,train_loss
slow,0,2.5
slow,1000000,1.2'
[[ $out == "$expected" ]] && pass "defaults and single-run label (scenario name)" || fail "single run --print gave:
$out"

# --label forces the labelling key (here one that does not differ).
out=$(plot "$TMP/runs/slow" "$TMP/runs/fast" --label workers --label network.bandwidth --print --out "$TMP/out/l.png" 2>/dev/null)
out=$(sed -n 2p <<<"$out")
[[ $out == 'workers=8, bandwidth=1Gbps,0,2.5' || $out == '"workers=8, bandwidth=1Gbps",0,2.5' ]] \
  && pass "--label forces keys" || fail "--label gave: $out"

# --x bits axis label in SVG, in Mb for values up to 1e6 bits; --logx drops the
# x=0 points with a warning.
plot "$TMP/runs/slow" "$TMP/runs/fast" --logx --out "$TMP/out/bits.svg" 2>"$TMP/err"
grep -q '>bits sent \[Mb\]</text>' "$TMP/out/bits.svg" && pass "x label 'bits sent [Mb]'" || fail "no 'bits sent [Mb]' x label"
grep -q '^dlsim-plot: warning:.*<= 0' "$TMP/err" && pass "--logx warns about x <= 0" || fail "--logx: no warning"

# Sweep-style parent folder: subfolders with metrics.csv, others ignored.
mkdir -p "$TMP/sweep1/notes"
cp -r "$TMP/runs/slow" "$TMP/sweep1/p0"
cp -r "$TMP/runs/fast" "$TMP/sweep1/p1"
echo 'id,status' > "$TMP/sweep1/runs.csv"
out=$(plot "$TMP/sweep1" --print --out "$TMP/out/sweep.svg" | cut -d, -f1 | sort -u | tr '\n' ' ')
[[ $out == 'bandwidth=10Gbps bandwidth=1Gbps label ' ]] && pass "sweep folder" || fail "sweep folder labels: $out"
grep -q '>bandwidth=10Gbps</text>' "$TMP/out/sweep.svg" && pass "sweep SVG labels" || fail "sweep SVG lacks labels"

# Default y scale: log for losses > 0 (log ticks are mathtext "10" + exponent
# tspans in the SVG), linear with --no-logy and for test_accuracy.
plot "$TMP/runs/slow" "$TMP/runs/fast" --out "$TMP/out/loss.svg"
plot "$TMP/runs/slow" "$TMP/runs/fast" --no-logy --out "$TMP/out/loss-lin.svg"
grep -q '>10</tspan>' "$TMP/out/loss.svg" && pass "losses default to log y" || fail "train_loss plot is not log y"
! grep -q '>10</tspan>' "$TMP/out/loss-lin.svg" && pass "--no-logy is linear" || fail "--no-logy plot has log ticks"
! grep -q '>10</tspan>' "$svg" && pass "test_accuracy is linear by default" || fail "test_accuracy plot has log ticks"

# Keys whose last components clash keep their full dotted names (scenario order).
make_run "$TMP/amb/a" a 8 1Gbps parameter-server <<<'0,0,0,0,0,0,2.0,,,0,0'
make_run "$TMP/amb/b" b 8 1Gbps parameter-server <<<'0,0,0,0,0,0,1.0,,,0,0'
sed -i 's/"kind": "sgd"/"kind": "choco-sgd"/; s/"kind": "linear"/"kind": "mlp"/' "$TMP/amb/b/summary.json"
out=$(plot "$TMP/amb" --print --out "$TMP/out/amb.png")
[[ $out == 'label,bits_total,train_loss
"model.kind=linear, algorithm.kind=sgd",0,2
"model.kind=mlp, algorithm.kind=choco-sgd",0,1' ]] \
  && pass "ambiguous keys keep full names" || fail "ambiguous-key labels: $out"

# A run whose y column is entirely empty is skipped with a warning.
make_run "$TMP/runs/noacc" noacc 8 100Mbps parameter-server <<'EOF'
0,0,0,0,0,0,2.5,,,0,0.01
1,10,1,100,130,16,1.0,,,0,0.02
EOF
out=$(plot "$TMP/runs/slow" "$TMP/runs/noacc" --y test_accuracy --print --out "$TMP/out/skip.png" 2>"$TMP/err" | cut -d, -f1 | sort -u | tr '\n' ' ')
grep -q '^dlsim-plot: warning:.*noacc.*test_accuracy' "$TMP/err" && pass "empty-y run warned" || fail "no warning for empty-y run: $(cat "$TMP/err")"
[[ $out == 'bandwidth=1Gbps label ' ]] && pass "empty-y run skipped" || fail "empty-y run labels: $out"

# expect_error DESCRIPTION ARGS...: exit 2, exactly one stderr line
# "dlsim-plot: error: ..." (possibly after warnings), nothing else, no stdout.
expect_error() {
  local what=$1; shift
  local rc=0
  plot "$@" >"$TMP/out.txt" 2>"$TMP/err" || rc=$?
  local errors others
  errors=$(grep -c '^dlsim-plot: error: ' "$TMP/err" || true)
  others=$(grep -vc '^dlsim-plot: \(error\|warning\): ' "$TMP/err" || true)
  if [[ $rc -eq 2 && $errors -eq 1 && $others -eq 0 && ! -s $TMP/out.txt ]]; then
    pass "error: $what ($(grep '^dlsim-plot: error: ' "$TMP/err"))"
  else
    fail "error case '$what': rc=$rc, stderr: $(cat "$TMP/err")"
  fi
}
expect_error "missing folder" "$TMP/does-not-exist" --out "$TMP/out/x.png"
expect_error "folder without metrics.csv" "$TMP/sweep1/notes" --out "$TMP/out/x.png"
expect_error "unknown --y column" "$TMP/runs/slow" --y bogus_loss --out "$TMP/out/x.png"
expect_error "unknown --x" "$TMP/runs/slow" --x furlongs --out "$TMP/out/x.png"
expect_error "bad extension" "$TMP/runs/slow" --out "$TMP/out/x.jpg"
expect_error "unknown --label key" "$TMP/runs/slow" --label nosuchkey --out "$TMP/out/x.png"
expect_error "unknown option" "$TMP/runs/slow" --frobnicate --out "$TMP/out/x.png"
expect_error "nothing left to plot" "$TMP/runs/noacc" --y test_accuracy --out "$TMP/out/x.png"
expect_error "--speedup without --target-loss" "$TMP/runs/slow" --speedup --out "$TMP/out/x.png"
[[ ! -e $TMP/out/x.jpg && ! -e $TMP/out/x.png ]] && pass "no output on error" || fail "output written on error"

# --help documents the options and has an example.
help=$(plot --help)
missing=""
for opt in --x --y --out --logx --logy --no-logy --title --label --speedup --target-loss --print \
           'bits sent' 'simulated time' 'examples:' 'dlsim-plot results/'; do
  grep -q -- "$opt" <<<"$help" || missing+=" $opt"
done
[[ -z $missing ]] && pass "--help documents every option with examples" || fail "--help lacks:$missing"

# --speedup on a hand-made sweep: workers 1,2,4 x two collectives.
# Time to first train_loss <= 0.5 (empty loss cells ignored):
#   parameter-server: w1 4.0, w2 2.0, w4 1.25   -> speedup 1, 2, 3.2
#   ring-allreduce:   w1 4.0, w2 2.5, w4 never  -> speedup 1, 1.6 (w4 left out, warned)
S="$TMP/sweep2"
make_run "$S/w1-ps" w1-ps 1 1Gbps parameter-server <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
1,10,1,10,10,1,1.0,,,0,0
2,20,2,20,20,2,,,,0,0
3,30,3,30,30,3,0.6,,,0,0
4,40,4,40,40,4,0.5,,,0,0
5,50,5,50,50,5,0.3,,,0,0
EOF
make_run "$S/w2-ps" w2-ps 2 1Gbps parameter-server <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
1,10,1,10,10,1,0.9,,,0,0
1.5,15,1.5,15,15,1,,,,0,0
2,20,2,20,20,2,0.45,,,0,0
3,30,3,30,30,3,0.2,,,0,0
EOF
make_run "$S/w4-ps" w4-ps 4 1Gbps parameter-server <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
0.5,10,1,10,10,1,0.8,,,0,0
1.25,20,2,20,20,2,0.4,,,0,0
2,30,3,30,30,3,0.1,,,0,0
EOF
make_run "$S/w1-ring" w1-ring 1 1Gbps ring-allreduce <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
4,40,4,40,40,4,0.5,,,0,0
EOF
make_run "$S/w2-ring" w2-ring 2 1Gbps ring-allreduce <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
2.5,40,4,40,40,4,0.49,,,0,0
EOF
make_run "$S/w4-ring" w4-ring 4 1Gbps ring-allreduce <<'EOF'
0,0,0,0,0,0,2.0,,,0,0
3,40,4,40,40,4,0.7,,,0,0
EOF
out=$(plot "$S" --speedup --target-loss 0.5 --print --out "$TMP/out/speedup.png" 2>"$TMP/err")
expected='label,workers,time_to_target_s,speedup
collective=parameter-server,1,4,1
collective=parameter-server,2,2,2
collective=parameter-server,4,1.25,3.2
collective=ring-allreduce,1,4,1
collective=ring-allreduce,2,2.5,1.6'
[[ $out == "$expected" ]] && pass "--speedup numbers" || fail "--speedup --print gave:
$out"
grep -q '^dlsim-plot: warning:.*w4-ring' "$TMP/err" && pass "--speedup warns about unreached target" \
  || fail "--speedup: no warning for w4-ring: $(cat "$TMP/err")"
[[ $(head -c 4 "$TMP/out/speedup.png" | od -An -tx1 | tr -d ' \n') == 89504e47 ]] \
  && pass "--speedup PNG" || fail "--speedup PNG not written"

# Only one worker count -> speedup is meaningless.
expect_error "--speedup with one worker count" "$TMP/runs/slow" "$TMP/runs/fast" --speedup --target-loss 0.5 --out "$TMP/out/x.png"

# --target is an alias of --target-loss.
a=$(plot "$S" --speedup --target 0.5 --print --out "$TMP/out/speedup2.png" 2>/dev/null)
[[ $a == "$expected" ]] && pass "--target alias" || fail "--target gave: $a"

# ---------------- real dlsim output: a run folder and a sweep folder ----------
# valid_png FILE: PNG signature, an IHDR of a plausible size, more than 10 kB.
valid_png() {
  "$PY" - "$1" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
assert data[12:16] == b"IHDR"
w, h = struct.unpack(">II", data[16:24])
assert 400 <= w <= 3000 and 300 <= h <= 3000, (w, h)
assert len(data) > 10_000, len(data)
assert data[-8:-4] == b"IEND"
PY
}
# svg_texts FILE: the SVG parses as XML; prints its <text> contents, one per line.
svg_texts() {
  "$PY" - "$1" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag.endswith("svg"), root.tag
for t in root.iter():
    if t.tag.endswith("text"):
        print("".join(t.itertext()))
PY
}
cat > "$TMP/tiny.json" <<'JSON'
{"name": "tiny-ls", "workers": 2,
 "data": {"source": "synthetic-regression", "samples": 400, "features": 10},
 "model": {"kind": "least-squares"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server", "step_size": 0.05, "batch_size": 10},
 "stop": {"iterations": 200}, "metrics": {"every": {"iterations": 10}}}
JSON
"$DLSIM" run "$TMP/tiny.json" --out "$TMP/real-run" --quiet
"$DLSIM" sweep "$TMP/tiny.json" --grid workers=2,4 --grid algorithm.collective=parameter-server,allgather \
  --out "$TMP/real-sweep" --quiet
plot "$TMP/real-run" --x bits --y train_loss --out "$TMP/out/run.png"
valid_png "$TMP/out/run.png" && pass "run folder -> valid PNG" || fail "run folder PNG invalid"
plot "$TMP/real-run" --x time --y train_loss --out "$TMP/out/run.svg"
texts=$(svg_texts "$TMP/out/run.svg") && pass "run folder -> SVG parses as XML" || fail "run SVG is not XML"
grep -qx 'tiny-ls' <<<"$texts" && pass "title is the scenario name" || fail "no scenario-name title in: $texts"
plot "$TMP/real-sweep" --x bits --y train_loss --logy --out "$TMP/out/sweep.png"
valid_png "$TMP/out/sweep.png" && pass "sweep folder -> valid PNG" || fail "sweep folder PNG invalid"
[[ -n ${KEEP_PNG:-} ]] && cp "$TMP/out/sweep.png" "$KEEP_PNG"
# labels: the distinct first CSV fields of --print, in order, joined by "|".
labels() { "$PY" -c 'import csv, sys
seen = []
for row in csv.reader(sys.stdin):
    if row[0] not in seen:
        seen.append(row[0])
print("|".join(seen))'; }
out=$(plot "$TMP/real-sweep" --x bits --y train_loss --print --out "$TMP/out/sweep.svg" | labels)
[[ $out == 'label|workers=2, collective=parameter-server|workers=2, collective=allgather|workers=4, collective=parameter-server|workers=4, collective=allgather' ]] \
  && pass "sweep runs in runs.csv order" || fail "sweep order: $out"
texts=$(svg_texts "$TMP/out/sweep.svg") && pass "sweep folder -> SVG parses as XML" || fail "sweep SVG is not XML"
for label in 'workers=2, collective=parameter-server' 'workers=4, collective=allgather' 'bits sent [Kb]'; do
  grep -qxF "$label" <<<"$texts" && pass "sweep SVG has '$label'" || fail "sweep SVG lacks '$label': $texts"
done
# --group: one colour per value, the group key first in every label.
plot "$TMP/real-sweep" --group collective --out "$TMP/out/group.svg"
texts=$(svg_texts "$TMP/out/group.svg")
grep -qxF 'collective=allgather, workers=4' <<<"$texts" && pass "--group labels" || fail "--group labels: $texts"
# A sweep row that is not done is skipped with a warning.
sed -i '3s/,done,/,failed,/' "$TMP/real-sweep/runs.csv"
out=$(plot "$TMP/real-sweep" --print --out "$TMP/out/x.png" 2>"$TMP/err" | labels | tr '|' '\n' | wc -l)
[[ $out -eq 4 ]] && grep -q 'warning: .*1 run(s) not finished' "$TMP/err" \
  && pass "unfinished sweep runs skipped with a warning" || fail "unfinished runs: $out curves, $(cat "$TMP/err")"

if ((failures > 0)); then
  echo "plot.sh: $failures check(s) failed" >&2
  exit 1
fi
echo "plot.sh: all checks passed"
