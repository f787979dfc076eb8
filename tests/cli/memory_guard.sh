#!/usr/bin/env bash
# Memory guard (issue 22): scenarios whose estimated peak memory exceeds the memory
# available are refused like every bad input (docs/design.md §3): exit code 2, one line
# `dlsim: error: <key>: the run needs about ... (estimate; ...), more than the ...
# available (<where the limit comes from>)`, and no output folder. These four used to end
# in std::bad_alloc (exit 1) or an abort: softmax with 10^5 features x 10^5 classes,
# consensus of dimension 10^10, a one-line libsvm file naming feature 2^31, and 300,000
# workers under a 2.6 GB limit. Also: --memory-limit (run, validate, sweep) and its bad
# values, RLIMIT_AS as the limit, and a run that fits runs.
# Usage: memory_guard.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

stop='"stop": {"iterations": 2}'

expect_refused softmax_1e5x1e5 "workers: " \
  "{\"workers\": 2, \"data\": {\"source\": \"synthetic-classification\", \"samples\": 100, \"features\": 100000, \"classes\": 100000}, \"model\": {\"kind\": \"softmax\"}, $stop}" \
  "more than the"
expect_refused consensus_1e10 "workers: " \
  "{\"workers\": 4, \"model\": {\"kind\": \"consensus\", \"dimension\": 10000000000}, \"algorithm\": {\"kind\": \"choco-gossip\"}, $stop}" \
  "10000000000 values"
printf '1 2147483648:1\n' > "$tmp/wide.svm"
expect_refused libsvm_index_2_31 "data.path: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/wide.svm\"}, \"model\": {\"kind\": \"least-squares\"}, $stop}" \
  "2147483649 values"
workers300k="{\"workers\": 300000, \"model\": {\"kind\": \"consensus\", \"dimension\": 100}, \"algorithm\": {\"kind\": \"choco-gossip\"}, $stop}"
expect_refused workers_300000 "workers: " "$workers300k" \
  "more than the 2.6 GB available (--memory-limit)" -- --memory-limit 2.6GB

printf '%s' "$workers300k" > "$tmp/w.json"
# ulimit -v (RLIMIT_AS, in kB) cannot be combined with AddressSanitizer's shadow memory.
sanitized=$(sanitizer_build)
if [ "$sanitized" != 0 ]; then
  echo "skip rlimit_as, out_of_memory_*: AddressSanitizer build"
else
  # under_ulimit NAME KB CODE PATTERN FILE OUT [args]: `dlsim run FILE --out OUT` under
  # `ulimit -v KB` exits CODE with one stderr line matching PATTERN; with CODE 2 nothing
  # is written.
  under_ulimit() {
    local name=$1 kb=$2 code=$3 pattern=$4 file=$5 out=$6
    shift 6
    count=$((count + 1))
    (ulimit -v "$kb" && "$dlsim" run "$file" --out "$out" --quiet "$@") > /dev/null 2> "$tmp/stderr"
    local rc=$?
    if [ "$rc" -eq "$code" ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] &&
       grep -q "$pattern" "$tmp/stderr" && { [ "$code" -ne 2 ] || [ ! -e "$out" ]; }; then
      echo "ok   $name: $(cat "$tmp/stderr")"
    else
      echo "FAIL $name: exit $rc: $(cat "$tmp/stderr")"; failures=$((failures + 1))
    fi
  }
  # The limit from the process's own RLIMIT_AS when no --memory-limit.
  under_ulimit rlimit_as 2600000 2 "^dlsim: error: workers: .*(RLIMIT_AS)$" "$tmp/w.json" "$tmp/out-as"
  # A --memory-limit above what RLIMIT_AS allows lets std::bad_alloc happen: one line,
  # exit 2 while the data is generated (nothing written), exit 1 once the run has begun.
  printf '{"workers": 2, "data": {"source": "synthetic-regression", "samples": 1000000, "features": 1000}, %s}' "$stop" > "$tmp/big.json"
  under_ulimit out_of_memory_preparing 1000000 2 "^dlsim: error: memory: ran out of memory while loading" \
    "$tmp/big.json" "$tmp/out-oom1" --memory-limit 100GB
  under_ulimit out_of_memory_running 1500000 1 "^dlsim: error: ran out of memory during the run (estimated peak" \
    "$tmp/w.json" "$tmp/out-oom2" --memory-limit 100GB
fi

# --memory-limit: bad values, and a limit below a small run's needs.
small='{"workers": 2, "data": {"source": "synthetic-regression", "samples": 1000, "features": 20}, "stop": {"iterations": 2}}'
expect_refused limit_unit "--memory-limit: " "$small" "unknown size unit" -- --memory-limit 3parsecs
expect_refused limit_zero "--memory-limit: " "$small" "positive" -- --memory-limit 0GB
expect_refused limit_negative "--memory-limit: " "$small" "positive" -- --memory-limit=-1GB
expect_refused limit_text "--memory-limit: " "$small" "" -- --memory-limit lots
expect_refused limit_tiny "data.samples: " "$small" "more than the 1 MB available (--memory-limit)" -- --memory-limit 1MB

# validate and sweep refuse the same way (sweep: before its folder exists).
for cmd in validate sweep; do
  count=$((count + 1))
  printf '%s' "$workers300k" > "$tmp/$cmd.json"
  extra=()
  [ "$cmd" = sweep ] && extra=(--out "$tmp/out-$cmd")
  "$dlsim" "$cmd" "$tmp/$cmd.json" --memory-limit 2.6GB "${extra[@]}" > "$tmp/stdout" 2> "$tmp/stderr"
  rc=$?
  if [ "$rc" -eq 2 ] && [ "$(wc -l < "$tmp/stderr")" -eq 1 ] && grep -q "^dlsim: error: workers: the run needs about" "$tmp/stderr" && [ ! -e "$tmp/out-$cmd" ] && [ ! -s "$tmp/stdout" ]; then
    echo "ok   ${cmd}_limit: $(cat "$tmp/stderr")"
  else
    echo "FAIL ${cmd}_limit: exit $rc: $(cat "$tmp/stderr")"; failures=$((failures + 1))
  fi
done

# A run that fits its limit runs, and summary.json reports the estimate (design.md §5).
count=$((count + 1))
printf '%s' "$small" > "$tmp/small.json"
# (AddressSanitizer's shadow memory inflates the resident set: the factor is checked in
# uninstrumented builds only, here and in memory_estimate_slow.sh.)
if "$dlsim" run "$tmp/small.json" --out "$tmp/out-small" --quiet --memory-limit 1GB &&
  "$py" - "$tmp/out-small/summary.json" "$sanitized" <<'PY'
import json, sys
t = json.load(open(sys.argv[1]))["totals"]
sanitized = sys.argv[2] != "0"
parts = t["peak_rss_estimate_parts"]
assert set(parts) == {"baseline", "loading", "data", "model_state", "thread_scratch", "engine"}, parts
running = sum(v for k, v in parts.items() if k not in ("baseline", "loading"))
assert abs(t["peak_rss_estimate_bytes"] - parts["baseline"] - max(parts["loading"], running)) < 1, t
assert sanitized or 1.5 * t["peak_rss_estimate_bytes"] >= t["peak_rss_bytes"] >= t["peak_rss_estimate_bytes"] / 1.5, t
PY
then
  echo "ok   fits"
else
  echo "FAIL fits"; failures=$((failures + 1))
fi

refusals_summary
