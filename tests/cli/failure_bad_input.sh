#!/usr/bin/env bash
# Node failures (issue 10; network.faults.fail, fail_timeout; failure_check.cpp) that
# dlsim cannot simulate as documented are refused like every bad input (docs/design.md §3):
# exit code 2, one line `dlsim: error: <key>: <what>`, and no output folder. A valid
# failure run is checked at the end: it completes and reports the failure in
# summary.json. Usage: failure_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# An 8-worker averaging run: $1 = network.faults, $2 = topology (default a ring),
# $3 = algorithm kind (default dpsgd).
ring='{"kind": "ring"}'
gossip() {
  printf '{"workers": 8, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 4},
    "algorithm": {"kind": "%s"}, "topology": %s, "network": {"faults": %s}, "stop": {"iterations": 5}}' \
    "${3:-dpsgd}" "${2:-$ring}" "$1"
}
one='[{"node": 3, "at": "1ms"}]'

expect_refused centralized "network.faults.fail" \
  '{"workers": 4, "algorithm": {"kind": "sgd"}, "network": {"faults": {"fail": [{"node": 1, "at": 0}]}}, "stop": {"iterations": 2}}' \
  "decentralized algorithms only"
expect_refused compressed_push_sum "network.faults.fail" \
  "$(gossip "{\"fail\": $one}" "$ring" choco-sgp)" "not supported"
expect_refused node_out_of_range "network.faults.fail[0].node" "$(gossip '{"fail": [{"node": 8, "at": 0}]}')" "[0, 7]"
expect_refused node_negative "network.faults.fail[0].node" "$(gossip '{"fail": [{"node": -1, "at": 0}]}')"
expect_refused node_not_integer "network.faults.fail[0].node" "$(gossip '{"fail": [{"node": 1.5, "at": 0}]}')"
expect_refused node_missing "network.faults.fail[0]" "$(gossip '{"fail": [{"at": "1s"}]}')" "node"
expect_refused at_missing "network.faults.fail[0]" "$(gossip '{"fail": [{"node": 2}]}')" "at"
expect_refused at_negative "network.faults.fail[0].at" "$(gossip '{"fail": [{"node": 2, "at": "-1s"}]}')"
expect_refused at_bad_unit "network.faults.fail[0].at" "$(gossip '{"fail": [{"node": 2, "at": "3 fortnights"}]}')"
expect_refused unknown_key "network.faults.fail[0]" "$(gossip '{"fail": [{"node": 2, "at": 0, "why": "power"}]}')"
expect_refused not_an_array "network.faults.fail" "$(gossip '{"fail": {"node": 2, "at": 0}}')"
expect_refused duplicate "network.faults.fail[1].node" \
  "$(gossip '{"fail": [{"node": 2, "at": 0}, {"node": 2, "at": "1s"}]}')" "fails twice"
expect_refused everyone "network.faults.fail" \
  "$(printf '{"workers": 2, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 2}, "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "ring"}, "network": {"faults": {"fail": [{"node": 0, "at": 0}, {"node": 1, "at": 0}]}}, "stop": {"iterations": 2}}')" \
  "at least one must survive"
expect_refused disconnects "network.faults.fail" \
  "$(gossip '{"fail": [{"node": 1, "at": 0}, {"node": 5, "at": "1s"}]}')" "2 disconnected groups"
expect_refused star_centre "network.faults.fail" \
  "$(gossip '{"fail": [{"node": 0, "at": "1ms"}]}' '{"kind": "star"}')" "7 disconnected groups"
expect_refused time_varying "network.faults.fail" \
  "$(gossip "{\"fail\": $one}" '{"kind": "one-peer-exponential"}')" "static graph"
expect_refused directed "network.faults.fail" \
  "$(gossip "{\"fail\": $one}" '{"kind": "directed-ring"}' sgp)" "undirected"
expect_refused timeout_without_fail "network.faults.fail_timeout" "$(gossip '{"fail_timeout": "1ms"}')" "lists no node"
expect_refused timeout_zero "network.faults.fail_timeout" "$(gossip "{\"fail\": $one, \"fail_timeout\": 0}")"
expect_refused timeout_string "network.faults.fail_timeout" "$(gossip "{\"fail\": $one, \"fail_timeout\": \"soon\"}")"
expect_refused set_override "network.faults.fail[0].node" "$(gossip '{}')" -- \
  --set 'network.faults.fail=[{"node": 99, "at": 0}]'

refusals_summary || exit 1

# A valid run: node 3 of the ring fails at 1 ms; its neighbours 2 and 4 notice.
printf '%s' "$(gossip "{\"fail\": $one, \"fail_timeout\": \"50us\"}")" > "$tmp/ok.json"
check "a failure run completes" "$dlsim" run "$tmp/ok.json" --out "$tmp/ok" --quiet \
  --set stop.iterations=400
check "summary.json reports who noticed" "$py" - "$tmp/ok/summary.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
f = s["failures"]
assert f["fail_timeout_s"] == 50e-6, f
[n] = f["nodes"]
assert n["node"] == 3 and n["stopped_s"] >= 1e-3, n
assert sorted(d["node"] for d in n["detected_by"]) == [2, 4], n
assert all(d["time_s"] >= n["stopped_s"] + 50e-6 for d in n["detected_by"]), n
assert s["final"]["iteration"] == 400, s["final"]
assert s["final"]["consensus_distance"] < 1e-6, s["final"]
PY
echo "$passed passed"
