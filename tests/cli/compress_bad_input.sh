#!/usr/bin/env bash
# Bad compressor parameters are refused like every other bad input (DESIGN.md §3):
# exit code 2, one line `dlsim: error: algorithm.compressor.<key>: ...` (or
# algorithm.collective), nothing written. A good compressed run then succeeds.
# Usage: compress_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
dlsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
count=0

# expect_refused NAME WHERE-PREFIX COMPRESSOR-JSON [COLLECTIVE]
expect_refused() {
  local name=$1 where=$2 compressor=$3 collective=${4:-parameter-server}
  count=$((count + 1))
  local file="$tmp/$name.json" out="$tmp/out-$name"
  printf '{"workers": 2, "data": {"samples": 100, "features": 4}, "algorithm": {"collective": "%s", "batch_size": 10, "compressor": %s}, "stop": {"iterations": 2}}' "$collective" "$compressor" > "$file"
  "$dlsim" run "$file" --out "$out" --quiet > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  local lines first
  lines=$(wc -l < "$tmp/stderr")
  first=$(head -n 1 "$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2 (stderr: $first)"; failures=$((failures + 1)); return
  fi
  if [ "$lines" -ne 1 ]; then
    echo "FAIL $name: $lines lines on stderr, expected 1:"; cat "$tmp/stderr"; failures=$((failures + 1)); return
  fi
  case "$first" in
    "dlsim: error: $where"*) ;;
    *) echo "FAIL $name: got '$first', expected prefix 'dlsim: error: $where'"; failures=$((failures + 1)); return ;;
  esac
  if [ -e "$out" ]; then
    echo "FAIL $name: the output folder was created"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $first"
}

c=algorithm.compressor
expect_refused unknown_kind "$c.kind" '{"kind": "zip"}'
expect_refused lpc_bits_low "$c.bits" '{"kind": "lpc", "bits": 1}'
expect_refused lpc_bits_high "$c.bits" '{"kind": "lpc", "bits": 33}'
expect_refused lpc_bits_fraction "$c.bits" '{"kind": "lpc", "bits": 3.5}'
expect_refused lpc_bits_word "$c.bits" '{"kind": "lpc", "bits": "many"}'
expect_refused lpc_bucket_zero "$c.bucket" '{"kind": "lpc", "bucket": 0}'
expect_refused lpc_clip_unknown "$c.clip" '{"kind": "lpc", "clip": "huge"}'
expect_refused lpc_clip_fixed_bare "$c.clip" '{"kind": "lpc", "clip": "fixed"}'
expect_refused lpc_clip_fixed_no_value "$c.clip.value" '{"kind": "lpc", "clip": {"kind": "fixed"}}'
expect_refused lpc_clip_negative "$c.clip.factor" '{"kind": "lpc", "clip": {"kind": "std", "factor": -1}}'
expect_refused lpc_clip_wrong_key "$c.clip.value" '{"kind": "lpc", "clip": {"kind": "max", "value": 1}}'
expect_refused qsgd_levels_zero "$c.levels" '{"kind": "qsgd", "levels": 0}'
expect_refused qsgd_bucket_zero "$c.bucket" '{"kind": "qsgd", "bucket": 0}'
expect_refused qsgd_coding "$c.coding" '{"kind": "qsgd", "coding": "huffman"}'
expect_refused topk_ratio_one "$c.ratio" '{"kind": "top-k", "ratio": 1}'
expect_refused topk_ratio_negative "$c.ratio" '{"kind": "top-k", "ratio": -0.5}'
expect_refused topk_neither "$c.ratio" '{"kind": "top-k"}'
expect_refused topk_both "$c.k" '{"kind": "top-k", "ratio": 0.5, "k": 2}'
expect_refused topk_k_zero "$c.k" '{"kind": "top-k", "k": 0}'
expect_refused topk_k_above_d "$c.k" '{"kind": "top-k", "k": 6}'
expect_refused randomk_k_above_d "$c.k" '{"kind": "random-k", "k": 6}'
expect_refused option_of_other_kind "$c" '{"kind": "sign", "levels": 4}'
expect_refused ring_topk "algorithm.collective" '{"kind": "top-k", "k": 2}' ring-allreduce
expect_refused ring_ef "$c.error_feedback" '{"kind": "fp16", "error_feedback": true}' ring-allreduce

# k = d is fine (d = 4 features + bias), and so is error feedback on none.
good="$tmp/good.json"
printf '{"workers": 2, "data": {"samples": 100, "features": 4},
         "algorithm": {"batch_size": 10, "compressor": {"kind": "top-k", "k": 5, "error_feedback": true}},
         "stop": {"iterations": 2}}' > "$good"
count=$((count + 1))
if "$dlsim" run "$good" --out "$tmp/good-out" --quiet > /dev/null 2> "$tmp/stderr"; then
  echo "ok   good: top-k k = d with error feedback runs"
else
  echo "FAIL good: $(cat "$tmp/stderr")"; failures=$((failures + 1))
fi

echo "$((count - failures))/$count passed"
[ "$failures" -eq 0 ]
