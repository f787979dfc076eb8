#!/usr/bin/env bash
# dlsim run --trace: OUT/trace.json is Chrome trace-event JSON with the expected
# fields; compute spans last exactly the model's compute time (profile model:
# compute_time x compute.per_worker); a lone message's send span lasts (P+H)/β and
# its receive span α + (P+H)/β; every transfer has one send and one receive span;
# the bits-in-flight counter returns to 0; --trace-limit truncates to valid JSON;
# tracing does not change the results.
# Usage: trace.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

cat > "$tmp/profile.json" <<'JSON'
{"name": "traced", "workers": 3,
 "model": {"kind": "profile", "parameters": 1000, "compute_time": "2ms"},
 "algorithm": {"kind": "sgd", "collective": "parameter-server"},
 "network": {"latency": "1ms", "bandwidth": "1Mbps", "header": "64B"},
 "compute": {"per_worker": [1, 2.5, 1]},
 "stop": {"iterations": 4},
 "metrics": {"every": {"iterations": 1}}}
JSON

"$dlsim" run "$tmp/profile.json" --out "$tmp/t" --trace --quiet
"$dlsim" run "$tmp/profile.json" --out "$tmp/plain" --quiet
check "no trace.json without --trace" test ! -e "$tmp/plain/trace.json"
check "tracing does not change metrics.csv (but wall_s)" \
  cmp -s <(cut -d, -f1-10 "$tmp/t/metrics.csv") <(cut -d, -f1-10 "$tmp/plain/metrics.csv")
check "no partial trace left" test ! -e "$tmp/t/trace.json.partial"

check "trace.json: fields, compute durations, transfer spans, counter, names" "$py" - "$tmp/t" <<'PY'
import json, os, sys
from collections import Counter
d = sys.argv[1]
trace = json.load(open(os.path.join(d, "trace.json")))
summary = json.load(open(os.path.join(d, "summary.json")))
events = trace["traceEvents"]
assert trace["otherData"]["truncated"] is False
for e in events:
    for field in ("name", "ph", "pid"):
        assert field in e, (field, e)
    if e["ph"] != "M":
        assert "ts" in e and e["ts"] >= 0, e

# Compute spans: complete events with every field; duration = compute_time x factor.
compute = [e for e in events if e["ph"] == "X"]
for e in compute:
    for field in ("ph", "ts", "dur", "pid", "tid", "name"):
        assert field in e, (field, e)
    assert e["name"] == "compute" and e["tid"] == 0
factor = [1, 2.5, 1]
per_worker = Counter(e["pid"] for e in compute if e["pid"] < 3)
assert per_worker == {0: 4, 1: 4, 2: 4}, per_worker  # one per iteration
for e in compute:
    if e["pid"] < 3:
        assert abs(e["dur"] - 2000 * factor[e["pid"]]) < 1e-6, e   # microseconds
# Spans of one node's computation never overlap.
for pid in range(3):
    spans = sorted((e["ts"], e["ts"] + e["dur"]) for e in compute if e["pid"] == pid)
    assert all(a[1] <= b[0] + 1e-9 for a, b in zip(spans, spans[1:])), spans

# Transfers: one send span (sender, tid 1) and one receive span (receiver, tid 2) each.
for cat, tid in (("send", 1), ("recv", 2)):
    begins = {e["id"]: e for e in events if e.get("cat") == cat and e["ph"] == "b"}
    ends = {e["id"]: e for e in events if e.get("cat") == cat and e["ph"] == "e"}
    assert len(begins) == summary["totals"]["messages"], (cat, len(begins))
    assert begins.keys() == ends.keys()
    for i, b in begins.items():
        e = ends[i]
        assert b["tid"] == e["tid"] == tid and b["pid"] == e["pid"] and b["name"] == e["name"]
        assert e["ts"] >= b["ts"]

# Bits in flight: never negative, back to 0 at the end.
counter = [e["args"]["bits"] for e in events if e["ph"] == "C"]
assert counter and min(counter) >= 0 and max(counter) > 0 and counter[-1] == 0, counter

names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
assert names == {0: "worker 0", 1: "worker 1", 2: "worker 2", 3: "server 3", 4: "network"}, names
PY

# A lone message (1 worker -> server): send span (P+H)/β, receive span α + (P+H)/β.
# P = 1000 fp32 parameters = 32000 bits, H = 64 B = 512 bits, β = 1 Mbps, α = 1 ms.
"$dlsim" run "$tmp/profile.json" --set workers=1 --set 'compute.per_worker=[1]' --set stop.iterations=1 \
  --out "$tmp/lone" --trace --quiet
check "lone message: send = (P+H)/β, receive = α + (P+H)/β" "$py" - "$tmp/lone/trace.json" <<'PY'
import json, sys
events = json.load(open(sys.argv[1]))["traceEvents"]
first = {}
for e in events:
    if e.get("cat") in ("send", "recv"):
        first.setdefault((e["cat"], e["id"], e["ph"]), e["ts"])
b, e = first[("send", 0, "b")], first[("send", 0, "e")]
assert abs((e - b) - 32512) < 1e-6, e - b          # (32000 + 512) bits / 1e6 bit/s, in us
b, e = first[("recv", 1, "b")], first[("recv", 1, "e")]
assert abs((e - b) - (1000 + 32512)) < 1e-6, e - b  # + 1 ms latency
PY

# --trace-limit: truncated, still valid JSON, truncation noted.
"$dlsim" run "$tmp/profile.json" --out "$tmp/cut" --trace --trace-limit 20 --quiet
check "--trace-limit truncates to valid JSON and says so" "$py" - "$tmp/cut/trace.json" <<'PY'
import json, sys
trace = json.load(open(sys.argv[1]))
other = trace["otherData"]
assert other["truncated"] is True and other["events_dropped"] > 0 and other["limit"] == 20, other
events = [e for e in trace["traceEvents"] if e["ph"] != "M"]
begun = {(e["cat"], e["id"]) for e in events if e["ph"] == "b"}
ends = [e for e in events if e["ph"] == "e"]
assert all((e["cat"], e["id"]) in begun for e in ends)       # no end without a begin
assert len(events) - len(ends) <= 20, len(events)           # only span ends beyond the limit
assert len(events) == other["events"]
PY

rc=0
"$dlsim" run "$tmp/profile.json" --out "$tmp/bad" --trace-limit lots 2> "$tmp/err" || rc=$?
check "--trace-limit needs a number: exit 2" test "$rc" -eq 2
check "--trace-limit needs a number: one line" grep -q '^dlsim: error: command line: ' "$tmp/err"

echo "$passed passed, 0 failed"
