#!/usr/bin/env bash
# Hostile input (issue 10): malformed fault keys, malformed data files (ragged or
# non-numeric CSV, bad libsvm lines, IDX files whose header lies or overflows, corrupt
# gzip) and scenarios too large for the machine's memory are refused like every bad
# input (docs/design.md §3): exit code 2, one line `dlsim: error: <key>: <what>`, and no
# output folder. (bad_input.sh, models_bad_input.sh, compress_bad_input.sh,
# central_bad_input.sh, decentralized_bad_input.sh and topology.sh cover the rest.)
# Usage: reliability_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

stop='"stop": {"iterations": 2}'
net() { printf '{"workers": 4, "network": %s, %s}' "$1" "$stop"; }

# --- network.faults, network.schedule, network.down ----------------------------
expect_refused drop_one "network.faults.drop_probability" "$(net '{"faults": {"drop_probability": 1}}')"
expect_refused drop_negative "network.faults.drop_probability" "$(net '{"faults": {"drop_probability": -0.1}}')"
expect_refused drop_string "network.faults.drop_probability" "$(net '{"faults": {"drop_probability": "5%"}}')"
expect_refused retransmit_zero "network.faults.retransmit_timeout" "$(net '{"faults": {"retransmit_timeout": "0s"}}')"
expect_refused retransmit_unit "network.faults.retransmit_timeout" "$(net '{"faults": {"retransmit_timeout": "3 parsecs"}}')"
expect_refused faults_unknown_key "network.faults" "$(net '{"faults": {"loss": 0.1}}')"
expect_refused link_drop "network.links[0].drop_probability" "$(net '{"links": [{"from": 0, "to": 1, "drop_probability": 2}]}')"
expect_refused schedule_no_at "network.schedule[0]" "$(net '{"schedule": [{"from": 0, "to": 1, "bandwidth": "1Gbps"}]}')" "at"
expect_refused schedule_negative_at "network.schedule[0].at" "$(net '{"schedule": [{"at": "-1s", "from": 0, "to": 1, "bandwidth": "1Gbps"}]}')"
expect_refused schedule_order "network.schedule[1].at" "$(net '{"schedule": [{"at": "2s", "node": 0, "egress": "1Gbps"}, {"at": "1s", "node": 1, "egress": "1Gbps"}]}')" "time order"
expect_refused schedule_node_and_link "network.schedule[0]" "$(net '{"schedule": [{"at": "1s", "node": 0, "from": 0, "to": 1, "bandwidth": "1Gbps"}]}')" "either"
expect_refused schedule_nothing "network.schedule[0]" "$(net '{"schedule": [{"at": "1s"}]}')" "from and to"
expect_refused schedule_half_link "network.schedule[0]" "$(net '{"schedule": [{"at": "1s", "from": 0, "bandwidth": "1Gbps"}]}')"
expect_refused schedule_node_range "network.schedule[0].node" "$(net '{"schedule": [{"at": "1s", "node": 9, "egress": "1Gbps"}]}')" "node id"
expect_refused schedule_link_range "network.schedule[0].to" "$(net '{"schedule": [{"at": "1s", "from": 0, "to": 7, "bandwidth": "1Gbps"}]}')"
expect_refused schedule_self_link "network.schedule[0].to" "$(net '{"schedule": [{"at": "1s", "from": 2, "to": 2, "bandwidth": "1Gbps"}]}')"
expect_refused schedule_node_bandwidth "network.schedule[0]" "$(net '{"schedule": [{"at": "1s", "node": 1, "bandwidth": "1Gbps"}]}')" "egress or ingress"
expect_refused schedule_link_egress "network.schedule[0]" "$(net '{"schedule": [{"at": "1s", "from": 0, "to": 1, "egress": "1Gbps"}]}')"
expect_refused schedule_zero_rate "network.schedule[0].bandwidth" "$(net '{"schedule": [{"at": "1s", "from": 0, "to": 1, "bandwidth": "0bps"}]}')"
expect_refused down_backwards "network.down[0].end" "$(net '{"down": [{"from": 0, "to": 1, "start": "2s", "end": "1s"}]}')" "later than start"
expect_refused down_missing_end "network.down[0]" "$(net '{"down": [{"from": 0, "to": 1, "start": "2s"}]}')"
expect_refused down_range "network.down[0].from" "$(net '{"down": [{"from": 12, "to": 1, "start": "1s", "end": "2s"}]}')"
expect_refused schedule_not_array "network.schedule" "$(net '{"schedule": {"at": "1s"}}')"
# --set paths are validated like the file.
count=$((count + 1))
printf '{"workers": 2, "stop": {"iterations": 2}}' > "$tmp/plain.json"
"$dlsim" run "$tmp/plain.json" --set network.faults.drop_probability=1.5 --out "$tmp/out-set" --quiet 2> "$tmp/stderr"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "^dlsim: error: network.faults.drop_probability" "$tmp/stderr" && [ ! -e "$tmp/out-set" ]; then
  echo "ok   set_drop: $(cat "$tmp/stderr")"
else
  echo "FAIL set_drop: exit $rc: $(cat "$tmp/stderr")"; failures=$((failures + 1))
fi

count=$((count + 1))
"$dlsim" run "$tmp/plain.json" --set "name=$(printf 'bad\xff')" --out "$tmp/out-utf8" --quiet 2> "$tmp/stderr"
rc=$?
if [ "$rc" -eq 2 ] && grep -q "^dlsim: error: --set: not valid UTF-8" "$tmp/stderr" && [ ! -e "$tmp/out-utf8" ]; then
  echo "ok   set_invalid_utf8: $(cat "$tmp/stderr")"
else
  echo "FAIL set_invalid_utf8: exit $rc: $(cat "$tmp/stderr")"; failures=$((failures + 1))
fi

# --- data files -----------------------------------------------------------------
printf 'a,b,y\n1,2,0\n3,4\n' > "$tmp/ragged.csv"
printf 'a,y\n1,0\nx,1\n' > "$tmp/text.csv"
printf '' > "$tmp/empty.csv"
printf 'a,y\n' > "$tmp/header_only.csv"
printf 'a,b\n1,2\n' > "$tmp/no_label.csv"
printf 'a,y\n1,0\n2,inf\n' > "$tmp/inf.csv"
printf '1 1\n' > "$tmp/no_colon.svm"
printf '1 -3:1\n' > "$tmp/negative_index.svm"
printf '1 2:1 2:3\n' > "$tmp/repeated_index.svm"
printf 'one 1:1\n' > "$tmp/bad_label.svm"
mkdir -p "$tmp/idx_overflow" "$tmp/idx_count" "$tmp/idx_label" "$tmp/idx_gzip"
# 2^32-1 x 2^32-1 x 2^32-1 images: the product wraps around 64 bits.
printf '\x00\x00\x08\x03\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01\x02' | gzip > "$tmp/idx_overflow/train-images-idx3-ubyte.gz"
printf '\x00\x00\x08\x01\x00\x00\x00\x01\x01' | gzip > "$tmp/idx_overflow/train-labels-idx1-ubyte.gz"
# 2 images of 1x1 but 1 label.
printf '\x00\x00\x08\x03\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x01\x07\x08' | gzip > "$tmp/idx_count/train-images-idx3-ubyte.gz"
printf '\x00\x00\x08\x01\x00\x00\x00\x01\x01' | gzip > "$tmp/idx_count/train-labels-idx1-ubyte.gz"
# A label of 12.
printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x07' | gzip > "$tmp/idx_label/train-images-idx3-ubyte.gz"
printf '\x00\x00\x08\x01\x00\x00\x00\x01\x0c' | gzip > "$tmp/idx_label/train-labels-idx1-ubyte.gz"
# A gzip stream cut in half.
printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x07' | gzip | head -c 15 > "$tmp/idx_gzip/train-images-idx3-ubyte.gz"
cp "$tmp/idx_label/train-labels-idx1-ubyte.gz" "$tmp/idx_gzip/"
csv() { printf '{"workers": 1, "data": {"source": "csv", "path": "%s", "label_column": "y"}, "model": {"kind": "least-squares"}, %s}' "$1" "$stop"; }
svm() { printf '{"workers": 1, "data": {"source": "libsvm", "path": "%s"}, "model": {"kind": "least-squares"}, %s}' "$1" "$stop"; }
idx() { printf '{"workers": 1, "data": {"source": "fashion-mnist", "path": "%s"}, "model": {"kind": "softmax"}, %s}' "$1" "$stop"; }
expect_refused csv_ragged "data.path: $tmp/ragged.csv:3: " "$(csv "$tmp/ragged.csv")"
expect_refused csv_text "data.path: $tmp/text.csv:3: " "$(csv "$tmp/text.csv")"
expect_refused csv_empty "data.path: $tmp/empty.csv" "$(csv "$tmp/empty.csv")"
expect_refused csv_header_only "data.path: $tmp/header_only.csv" "$(csv "$tmp/header_only.csv")"
expect_refused csv_no_label "data.path: $tmp/no_label.csv" "$(csv "$tmp/no_label.csv")" "y"
expect_refused csv_infinite "data.path: $tmp/inf.csv:3: " "$(csv "$tmp/inf.csv")"
expect_refused csv_directory "data.path: " "$(csv "$tmp")"
expect_refused svm_no_colon "data.path: $tmp/no_colon.svm:1: " "$(svm "$tmp/no_colon.svm")"
expect_refused svm_negative_index "data.path: $tmp/negative_index.svm:1: " "$(svm "$tmp/negative_index.svm")"
expect_refused svm_repeated_index "data.path: $tmp/repeated_index.svm:1: " "$(svm "$tmp/repeated_index.svm")"
expect_refused svm_bad_label "data.path: $tmp/bad_label.svm:1: " "$(svm "$tmp/bad_label.svm")"
expect_refused idx_overflow "data.path: $tmp/idx_overflow/train-images-idx3-ubyte.gz: " "$(idx "$tmp/idx_overflow")" "exceed any file size"
expect_refused idx_count "data.path: $tmp/idx_count/train-labels-idx1-ubyte.gz: " "$(idx "$tmp/idx_count")" "1 labels for 2 images"
expect_refused idx_label "data.path: $tmp/idx_label/train-labels-idx1-ubyte.gz: " "$(idx "$tmp/idx_label")" "outside 0..9"
expect_refused idx_corrupt_gzip "data.path: $tmp/idx_gzip/train-images-idx3-ubyte.gz: " "$(idx "$tmp/idx_gzip")"

# --- resource guard -------------------------------------------------------------
expect_refused huge_data "data.samples: " \
  '{"workers": 2, "data": {"source": "synthetic-regression", "samples": 1000000000000, "features": 1000}, "stop": {"iterations": 2}}' \
  "MemAvailable"
expect_refused huge_model "workers: " \
  '{"workers": 64, "data": {"source": "synthetic-classification", "samples": 128, "features": 10}, "model": {"kind": "mlp", "hidden": [4000000000]}, "algorithm": {"batch_size": 1}, "stop": {"iterations": 2}}' \
  "MemAvailable"

refusals_summary
