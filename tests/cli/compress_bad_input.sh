#!/usr/bin/env bash
# Bad compressor parameters are refused like every other bad input (docs/design.md §3):
# exit code 2, one line `dlsim: error: algorithm.compressor.<key>: ...` (or
# algorithm.collective), nothing written. A good compressed run then succeeds.
# Usage: compress_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# compressor_refused NAME WHERE-PREFIX COMPRESSOR-JSON [COLLECTIVE]: a small scenario
# around the compressor, refused as lib/harness.sh's expect_refused demands.
compressor_refused() {
  local collective=${4:-parameter-server}
  expect_refused "$1" "$2" "$(printf '{"workers": 2, "data": {"samples": 100, "features": 4}, "algorithm": {"collective": "%s", "batch_size": 10, "compressor": %s}, "stop": {"iterations": 2}}' "$collective" "$3")"
}

c=algorithm.compressor
compressor_refused unknown_kind "$c.kind" '{"kind": "zip"}'
compressor_refused lpc_bits_low "$c.bits" '{"kind": "lpc", "bits": 1}'
compressor_refused lpc_bits_high "$c.bits" '{"kind": "lpc", "bits": 33}'
compressor_refused lpc_bits_fraction "$c.bits" '{"kind": "lpc", "bits": 3.5}'
compressor_refused lpc_bits_word "$c.bits" '{"kind": "lpc", "bits": "many"}'
compressor_refused lpc_bucket_zero "$c.bucket" '{"kind": "lpc", "bucket": 0}'
compressor_refused lpc_clip_unknown "$c.clip" '{"kind": "lpc", "clip": "huge"}'
compressor_refused lpc_clip_fixed_bare "$c.clip" '{"kind": "lpc", "clip": "fixed"}'
compressor_refused lpc_clip_fixed_no_value "$c.clip.value" '{"kind": "lpc", "clip": {"kind": "fixed"}}'
compressor_refused lpc_clip_negative "$c.clip.factor" '{"kind": "lpc", "clip": {"kind": "std", "factor": -1}}'
compressor_refused lpc_clip_wrong_key "$c.clip.value" '{"kind": "lpc", "clip": {"kind": "max", "value": 1}}'
compressor_refused qsgd_levels_zero "$c.levels" '{"kind": "qsgd", "levels": 0}'
compressor_refused qsgd_bucket_zero "$c.bucket" '{"kind": "qsgd", "bucket": 0}'
compressor_refused qsgd_coding "$c.coding" '{"kind": "qsgd", "coding": "huffman"}'
compressor_refused topk_ratio_one "$c.ratio" '{"kind": "top-k", "ratio": 1}'
compressor_refused topk_ratio_negative "$c.ratio" '{"kind": "top-k", "ratio": -0.5}'
compressor_refused topk_neither "$c.ratio" '{"kind": "top-k"}'
compressor_refused topk_both "$c.k" '{"kind": "top-k", "ratio": 0.5, "k": 2}'
compressor_refused topk_k_zero "$c.k" '{"kind": "top-k", "k": 0}'
compressor_refused topk_k_above_d "$c.k" '{"kind": "top-k", "k": 6}'
compressor_refused randomk_k_above_d "$c.k" '{"kind": "random-k", "k": 6}'
compressor_refused option_of_other_kind "$c" '{"kind": "sign", "levels": 4}'
compressor_refused ring_topk "algorithm.collective" '{"kind": "top-k", "k": 2}' ring-allreduce
compressor_refused ring_ef "$c.error_feedback" '{"kind": "fp16", "error_feedback": true}' ring-allreduce

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

refusals_summary
