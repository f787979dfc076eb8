#!/usr/bin/env bash
# Impossible `model.kind: "cnn"` layer lists are refused like every bad input (docs/design.md
# §3): exit code 2, one line `dlsim: error: model.layers[i].<key>: <what>`, no output
# folder. The good case of the same shape validates and runs, and so does
# scenarios/examples/cnn-fmnist-sgd.json.
# Usage: cnn_generic_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

stop='"stop": {"iterations": 2}'
images='"data": {"source": "synthetic-classification", "samples": 40, "features": 784, "classes": 10}'
conv='{"type": "conv", "channels": 4, "kernel": 5, "stride": 2, "padding": 2}'
pool='{"type": "maxpool"}'
out10='{"type": "dense", "units": 10}'
scenario() { printf '{"workers": 1, %s, "model": {"kind": "cnn", "layers": [%s]}, "algorithm": {"batch_size": 8}, %s}' "$images" "$1" "$stop"; }

expect_refused unknown_type "model.layers[1].type: " \
  "$(scenario "$conv, {\"type\": \"sigmoid\"}, $out10")" 'unknown type "sigmoid"'
expect_refused missing_type "model.layers[0].type: " \
  "$(scenario "{}, $out10")" 'missing required key "type"'
expect_refused missing_kernel "model.layers[0].kernel: " \
  "$(scenario "{\"type\": \"conv\", \"channels\": 4}, $out10")" 'missing required key "kernel" for type "conv"'
expect_refused missing_units "model.layers[1].units: " \
  "$(scenario "$conv, {\"type\": \"dense\"}")" 'missing required key "units"'
expect_refused extra_key "model.layers[1].units: " \
  "$(scenario "$conv, {\"type\": \"relu\", \"units\": 3}, $out10")" 'unknown key "units" for type "relu"'
expect_refused kernel_too_large "model.layers[3].kernel: " \
  "$(scenario "$conv, $pool, {\"type\": \"relu\"}, {\"type\": \"conv\", \"channels\": 2, \"kernel\": 9}, $out10")" \
  "9x9 does not fit the 4x7x7 input (padded to 7x7)"
expect_refused stride_zero "model.layers[0].stride: " \
  "$(scenario "{\"type\": \"conv\", \"channels\": 4, \"kernel\": 3, \"stride\": 0}, $out10")" "must be >= 1, got 0"
expect_refused padding_negative "model.layers[0].padding: " \
  "$(scenario "{\"type\": \"conv\", \"channels\": 4, \"kernel\": 3, \"padding\": -1}, $out10")" "must be >= 0"
expect_refused padding_not_below_kernel "model.layers[0].padding: " \
  "$(scenario "{\"type\": \"conv\", \"channels\": 4, \"kernel\": 3, \"padding\": 3}, $out10")" \
  "must be in [0, kernel - 1] = [0, 2], got 3"
expect_refused pool_size_3 "model.layers[1].size: " \
  "$(scenario "$conv, {\"type\": \"avgpool\", \"size\": 3}, $out10")" "only 2 is supported"
expect_refused pool_odd_input "model.layers[2]: " \
  "$(scenario "$conv, $pool, $pool, $out10")" \
  "2x2 pooling needs an even height and width of at least 2, the input is 4x7x7"
expect_refused pool_reaches_zero "model.layers[2]: " \
  "$(scenario "{\"type\": \"conv\", \"channels\": 4, \"kernel\": 28}, {\"type\": \"relu\"}, $pool, $out10")" \
  "the input is 4x1x1"
expect_refused not_10_classes "model.layers[2].units: " \
  "$(scenario "$conv, $pool, {\"type\": \"dense\", \"units\": 9}")" \
  "the last layer must give 10 outputs (one per class, shape 10x1x1), got 9x1x1"
expect_refused ends_in_feature_map "model.layers[1]: " \
  "$(scenario "$conv, {\"type\": \"relu\"}")" "got 4x14x14"
expect_refused empty_list "model.layers: " "$(scenario "")" "must not be empty"
expect_refused no_layers_key "model.layers: " \
  "{\"workers\": 1, $images, \"model\": {\"kind\": \"cnn\"}, $stop}" 'missing required key "layers"'
expect_refused data_3_classes "model.layers: " \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"samples\": 40, \"features\": 784, \"classes\": 3}, \"model\": {\"kind\": \"cnn\", \"layers\": [$conv, $pool, $out10]}, \"algorithm\": {\"batch_size\": 8}, $stop}" \
  "the network gives 10 outputs; the data has 3 classes"
expect_refused not_28x28 "data.features: " \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"features\": 20}, \"model\": {\"kind\": \"cnn\", \"layers\": [$out10]}, $stop}" \
  "784"

# The good case of the same shape validates and runs; so does the shipped scenario.
validates() { "$dlsim" validate "$1" > /dev/null; }
scenario "$conv, {\"type\": \"relu\"}, $pool, $out10" > "$tmp/good.json"
check "a valid cnn scenario validates" validates "$tmp/good.json"
check "a valid cnn scenario runs" "$dlsim" run "$tmp/good.json" --out "$tmp/good" --quiet
check "scenarios/examples/cnn-fmnist-sgd.json validates" validates "$src/scenarios/examples/cnn-fmnist-sgd.json"

refusals_summary
