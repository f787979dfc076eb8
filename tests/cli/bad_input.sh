#!/usr/bin/env bash
# Every malformed input is refused the same way (docs/design.md §3): exit code 2, exactly
# one line `dlsim: error: <where>: <what>` on stderr, and nothing written to the
# output folder. Usage: bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# Data files for the csv cases.
printf 'x1,x2,label\n1,2,3\n4,5\n' > "$tmp/short_row.csv"
printf 'x1,x2,label\n1,2,3\n4,abc,6\n' > "$tmp/not_numeric.csv"
printf 'x1,x2,y\n1,2,3\n' > "$tmp/no_label.csv"
printf 'x1,label\n1,2\n2,3\n3,4\n4,5\n' > "$tmp/small.csv"

expect_refused broken_json "$tmp/broken_json.json" '{"workers": 4,'
expect_refused not_an_object "scenario" '[1, 2, 3]'
expect_refused empty_file "$tmp/empty_file.json" ''
expect_refused unknown_top_key "wrkers" '{"wrkers": 4}'
expect_refused misspelt_deep_key "network.bandwith" '{"network": {"bandwith": "1Gbps"}}'
expect_refused misspelt_compressor_key "algorithm.compressor.kindd" '{"algorithm": {"compressor": {"kindd": "none"}}}'
expect_refused workers_string "workers" '{"workers": "four"}'
expect_refused workers_zero "workers" '{"workers": 0}'
expect_refused workers_fraction "workers" '{"workers": 2.5}'
expect_refused bandwidth_zero "network.bandwidth" '{"network": {"bandwidth": "0Gbps"}}'
expect_refused lv08_with_fifo "network.model" '{"network": {"model": "lv08", "sharing": "fifo"}}'
expect_refused bandwidth_negative "network.bandwidth" '{"network": {"bandwidth": -5}}'
expect_refused bandwidth_bad_unit "network.bandwidth" '{"network": {"bandwidth": "10 furlongs"}}'
expect_refused latency_negative "network.latency" '{"network": {"latency": "-1us"}}'
expect_refused header_not_size "network.header" '{"network": {"header": "64Gbps"}}'
expect_refused sharing_unknown "network.sharing" '{"network": {"sharing": "fare"}}'
expect_refused storage_float16 "data.storage" '{"data": {"source": "synthetic-regression", "storage": "float16"}}'
expect_refused storage_without_data "data.storage" '{"model": {"kind": "consensus", "dimension": 4}, "algorithm": {"kind": "choco-gossip"}, "data": {"source": "none", "storage": "float32"}}'
expect_refused batch_zero "algorithm.batch_size" '{"algorithm": {"batch_size": 0}}'
expect_refused momentum_one "algorithm.momentum" '{"algorithm": {"momentum": 1.0}}'
expect_refused step_negative "algorithm.step_size" '{"algorithm": {"step_size": -0.1}}'
expect_refused algorithm_unknown "algorithm.kind" '{"algorithm": {"kind": "sgdd"}}'
expect_refused collective_unknown "algorithm.collective" '{"algorithm": {"collective": "tree"}}'
expect_refused model_unknown "model.kind" '{"model": {"kind": "resnet-9000"}}'
expect_refused topology_unknown "topology.kind" '{"algorithm": {"kind": "dpsgd"}, "topology": {"kind": "rign"}}'
expect_refused torus_dims_mismatch "topology.dims" '{"workers": 8, "algorithm": {"kind": "dpsgd"}, "topology": {"kind": "torus", "dims": [3, 3]}}'
expect_refused dims_on_ring "topology.dims" '{"topology": {"kind": "ring", "dims": [2, 2]}}'
expect_refused collective_on_dpsgd "algorithm.collective" '{"algorithm": {"kind": "dpsgd", "collective": "allgather"}}'
expect_refused per_worker_length "compute.per_worker" '{"workers": 4, "compute": {"per_worker": [1, 2]}}'
expect_refused per_worker_zero "compute.per_worker" '{"workers": 2, "compute": {"per_worker": [1, 0]}}'
expect_refused node_id_out_of_range "network.nodes[0].id" '{"workers": 4, "algorithm": {"collective": "allgather"}, "network": {"nodes": [{"id": 4, "egress": "1Gbps"}]}}'
expect_refused link_self "network.links[0]" '{"network": {"links": [{"from": 1, "to": 1, "latency": "1ms"}]}}'
expect_refused link_out_of_range "network.links[0]" '{"workers": 2, "algorithm": {"collective": "allgather"}, "network": {"links": [{"from": 0, "to": 7}]}}'
expect_refused stop_empty "stop" '{"stop": {}}'
expect_refused stop_epochs_without_data "stop.epochs" '{"model": {"kind": "profile", "parameters": 1000}, "stop": {"epochs": 1}}'
expect_refused target_loss_without_data "stop.target_loss" '{"model": {"kind": "profile", "parameters": 1000}, "stop": {"target_loss": 0.1}}'
expect_refused profile_without_parameters "model.parameters" '{"model": {"kind": "profile"}}'
expect_refused every_two_keys "metrics.every" '{"metrics": {"every": {"iterations": 5, "epochs": 1}}}'
expect_refused nesterov_without_momentum "algorithm.nesterov" '{"algorithm": {"nesterov": true}}'
expect_refused feedback_on_ring "algorithm.compressor.error_feedback" '{"algorithm": {"collective": "ring-allreduce", "compressor": {"kind": "fp16", "error_feedback": true}}}'
expect_refused csv_without_path "data.path" '{"data": {"source": "csv"}}'
expect_refused csv_missing_file "data.path" "{\"data\": {\"source\": \"csv\", \"path\": \"$tmp/nope.csv\"}}"
expect_refused csv_short_row "data.path" "{\"data\": {\"source\": \"csv\", \"path\": \"$tmp/short_row.csv\"}}"
expect_refused csv_not_numeric "data.path" "{\"data\": {\"source\": \"csv\", \"path\": \"$tmp/not_numeric.csv\"}}"
expect_refused csv_no_label "data.path" "{\"data\": {\"source\": \"csv\", \"path\": \"$tmp/no_label.csv\"}}"
expect_refused batch_larger_than_shard "algorithm.batch_size" "{\"workers\": 2, \"data\": {\"source\": \"csv\", \"path\": \"$tmp/small.csv\"}, \"algorithm\": {\"batch_size\": 3}}"
expect_refused more_workers_than_samples "workers" "{\"workers\": 5, \"data\": {\"source\": \"csv\", \"path\": \"$tmp/small.csv\"}}"
expect_refused set_without_equals "--set" '{}' -- --set workers
expect_refused set_unknown_key "netwrk" '{}' -- --set netwrk.latency=1us
expect_refused set_bad_value "network.bandwidth" '{}' -- --set network.bandwidth=fast
expect_refused unknown_flag "command line" '{}' -- --thread 4

# A missing scenario file.
count=$((count + 1))
"$dlsim" run "$tmp/does-not-exist.json" --out "$tmp/out-missing" > /dev/null 2> "$tmp/stderr"
rc=$?
if [ $rc -eq 2 ] && grep -q "^dlsim: error: $tmp/does-not-exist.json: " "$tmp/stderr" && [ ! -e "$tmp/out-missing" ]; then
  echo "ok   missing_file: $(cat "$tmp/stderr")"
else
  echo "FAIL missing_file: rc=$rc $(cat "$tmp/stderr")"; failures=$((failures + 1))
fi

# validate refuses the same way and writes nothing anywhere.
count=$((count + 1))
printf '{"network": {"bandwith": 1}}' > "$tmp/v.json"
"$dlsim" validate "$tmp/v.json" > "$tmp/stdout" 2> "$tmp/stderr"
rc=$?
if [ $rc -eq 2 ] && [ ! -s "$tmp/stdout" ] && grep -q '^dlsim: error: network.bandwith: ' "$tmp/stderr"; then
  echo "ok   validate: $(cat "$tmp/stderr")"
else
  echo "FAIL validate: rc=$rc"; failures=$((failures + 1))
fi

refusals_summary
