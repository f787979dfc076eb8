#!/usr/bin/env bash
# Impossible convolutional models (issue 11) are refused like every bad input (docs/design.md
# §3): exit code 2, one line `dlsim: error: <key>: <what>`, no output folder.
# Usage: cnn_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

stop='"stop": {"iterations": 2}'
validates() { "$dlsim" validate "$1" > /dev/null; }
images='"data": {"source": "synthetic-classification", "samples": 40, "features": 784, "classes": 3}'
printf '1 1:0.5 2:1\n0 1:1 3:2\n2 2:1\n' > "$tmp/small.svm"

expect_refused resnet_depth_not_6n2 "model.depth: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"depth\": 9}, $stop}" "6n + 2"
expect_refused resnet_depth_21 "model.depth: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"depth\": 21}, $stop}" "6n + 2"
expect_refused resnet_depth_small "model.depth: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"depth\": 2}, $stop}"
expect_refused resnet_width_zero "model.width: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"width\": 0}, $stop}"
expect_refused resnet_activation "model.activation: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"activation\": \"tanh\"}, $stop}"
expect_refused lenet5_unknown_activation "model.activation: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"lenet5\", \"activation\": \"sigmoid\"}, $stop}"
expect_refused lenet5_unknown_pooling "model.pooling: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"lenet5\", \"pooling\": \"median\"}, $stop}"
expect_refused lenet5_precision "model.precision: " \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"lenet5\", \"precision\": \"half\"}, $stop}"
expect_refused lenet5_no_bias_key "model.bias" \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"lenet5\", \"bias\": false}, $stop}"
expect_refused lenet5_hidden_key "model.hidden" \
  "{\"workers\": 2, $images, \"model\": {\"kind\": \"lenet5\", \"hidden\": [10]}, $stop}"
expect_refused lenet5_not_28x28 "data.features: " \
  "{\"workers\": 2, \"data\": {\"source\": \"synthetic-classification\", \"features\": 20}, \"model\": {\"kind\": \"lenet5\"}, $stop}" \
  "784"
expect_refused resnet_not_28x28_file "model.kind: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/small.svm\"}, \"model\": {\"kind\": \"resnet\", \"depth\": 8}, \"algorithm\": {\"batch_size\": 1}, $stop}" \
  "784"
expect_refused lenet5_regression "data.source: " \
  "{\"workers\": 2, \"data\": {\"source\": \"synthetic-regression\"}, \"model\": {\"kind\": \"lenet5\"}, $stop}"
expect_refused lenet5_no_data "data.source: " \
  "{\"workers\": 2, \"data\": {\"source\": \"none\"}, \"model\": {\"kind\": \"lenet5\"}, \"algorithm\": {\"kind\": \"dpsgd\"}, $stop}"

# The good case of the same shape runs.
printf '%s' "{\"workers\": 2, $images, \"model\": {\"kind\": \"resnet\", \"depth\": 8, \"width\": 0.25}, \"algorithm\": {\"batch_size\": 8}, $stop}" > "$tmp/good.json"
check "a valid resnet scenario validates" validates "$tmp/good.json"
check "a valid resnet scenario runs" "$dlsim" run "$tmp/good.json" --out "$tmp/good" --quiet

# The LeNet-5 scenarios (examples/ and experiments/) validate and say what they reproduce.
mapfile -t lenet5 < <(find "$src/scenarios" -name '*lenet5*.json' | sort)
check "LeNet-5 scenarios are found" test "${#lenet5[@]}" -gt 0
for f in "${lenet5[@]}"; do
  check "$(basename "$f") validates" validates "$f"
  check "$(basename "$f") has a description" $py -c 'import json,sys; sys.exit(0 if json.load(open(sys.argv[1]))["description"] else 1)' "$f"
done

refusals_summary
