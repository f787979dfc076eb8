#!/usr/bin/env bash
# Bulk heap population (sim/engine/heap_prefault.hpp): a run whose per-node and per-worker
# state is estimated at 256 MB or more maps its heap in bulk, and says how much in
# summary.json (totals.heap_prefaulted_bytes) and under --profile; a small run does not,
# nor a run given glibc's huge pages (GLIBC_TUNABLES=glibc.malloc.hugetlb=1).
# A 120,000-worker ring of the 1 M-worker benchmark (bench/scenarios), one round: its
# "engine" piece is about 283 MB (270 MiB), its peak RSS about 280 MB.
# Usage: heap_prefault.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# A sanitizer's allocator replaces malloc's heap: nothing is populated there.
if [ "$(sanitizer_build)" = 1 ]; then
  echo "SKIPPED: sanitizer build (its allocator does not grow the heap with brk)"
  exit 0
fi

ring="$src/bench/scenarios/gossip-ring-1m-profile.json"
one_round=(--set 'stop={"iterations": 1}' --set 'metrics.every={"iterations": 1}')

check "a 120,000-worker run" \
  "$dlsim" run "$ring" --set workers=120000 "${one_round[@]}" --out "$tmp/large" --quiet \
  --profile 2> "$tmp/large.err"
check "it populated at least a quarter of its resident set in bulk, and no more" \
  "$py" - "$tmp/large/summary.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
engine = t["peak_rss_estimate_parts"]["engine"]
assert engine >= 256 * 2**20, t["peak_rss_estimate_parts"]
bulk, rss = t["heap_prefaulted_bytes"], t["peak_rss_bytes"]
# The heap and the reserved tables are most of the resident set (the rest: code, stacks,
# the vectors grown later); every page the populating thread mapped is counted in it. The
# thread maps what the simulation has not reached first: on an idle core about 70 % of
# the peak here, less when ctest keeps both cores busy (the unit tests pin the mapping
# itself: tests/heap_prefault_test.cpp).
assert bulk >= 0.25 * rss, (bulk, rss)
assert bulk <= rss, (bulk, rss)
print(f"populated {bulk / 1e6:.1f} MB of a {rss / 1e6:.1f} MB peak")
PY
check "--profile shows it" grep -q "^heap populated .* MB (mapped in bulk on a second thread" "$tmp/large.err"

check "a 1,024-worker run" \
  "$dlsim" run "$ring" --set workers=1024 "${one_round[@]}" --out "$tmp/small" --quiet \
  --profile 2> "$tmp/small.err"
check "it populated nothing" "$py" - "$tmp/small/summary.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["heap_prefaulted_bytes"] == 0, t
PY
check "--profile says nothing of it" bash -c "! grep -q '^heap populated' '$tmp/small.err'"

check "the 120,000-worker run with malloc's huge pages asked for" \
  env GLIBC_TUNABLES=glibc.malloc.hugetlb=1 "$dlsim" run "$ring" --set workers=120000 \
  "${one_round[@]}" --out "$tmp/huge" --quiet
check "leaves the heap to them" "$py" - "$tmp/huge/summary.json" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
assert t["heap_prefaulted_bytes"] == 0, t
PY

echo "$passed passed, 0 failed"
