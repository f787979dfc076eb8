#!/usr/bin/env bash
# CIFAR-10 files and image shapes that cannot be used (docs/design.md §3): exit code 2, one
# line `dlsim: error: <key>: <what>` naming the bad file, no output folder. Small CIFAR-10
# folders are generated here (a few 3,073-byte records per file); a valid one runs.
# Usage: cifar10_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

stop='"stop": {"iterations": 2}'
# write_cifar DIR [LABEL]: the six files, 2 records each (labels LABEL, or 0..9).
write_cifar() {
  $py - "$1" "${2:-}" <<'PY'
import os, sys
d, label = sys.argv[1], sys.argv[2]
os.makedirs(d, exist_ok=True)
names = [f"data_batch_{k}.bin" for k in range(1, 6)] + ["test_batch.bin"]
for k, name in enumerate(names):
    with open(os.path.join(d, name), "wb") as f:
        for i in range(2):
            f.write(bytes([int(label) if label else (2 * k + i) % 10]))
            f.write(bytes((k + i + p) % 256 for p in range(3072)))
PY
}
cifar() { printf '{"workers": 1, "data": {"source": "cifar10", "path": "%s"}, "model": %s, "algorithm": {"batch_size": 2}, %s}' "$1" "$2" "$stop"; }
softmax='{"kind": "softmax"}'

write_cifar "$tmp/good"
write_cifar "$tmp/trunc" && truncate -s 6145 "$tmp/trunc/data_batch_3.bin"
write_cifar "$tmp/misnamed" && mv "$tmp/misnamed/test_batch.bin" "$tmp/misnamed/test_batch.bin.bak"
write_cifar "$tmp/label" 10

expect_refused truncated "data.path: $tmp/trunc/data_batch_3.bin: size 6145 bytes" "$(cifar "$tmp/trunc" "$softmax")" "3073-byte records"
expect_refused misnamed "data.path: $tmp/misnamed/test_batch.bin: cannot read file" "$(cifar "$tmp/misnamed" "$softmax")"
expect_refused missing_folder "data.path: $tmp/nowhere/data_batch_1.bin: cannot read file" "$(cifar "$tmp/nowhere" "$softmax")"
expect_refused bad_label "data.path: $tmp/label/data_batch_1.bin: record 1 has label 10" "$(cifar "$tmp/label" "$softmax")" "outside 0..9"
expect_refused test_fraction "data.test_fraction: " \
  "{\"data\": {\"source\": \"cifar10\", \"path\": \"$tmp/good\", \"test_fraction\": 0.1}, \"model\": $softmax, $stop}" "official test set"
# Convolutional networks on 3x32x32: layer lists and group counts that cannot work.
expect_refused cnn_kernel_too_large "model.layers[2].kernel: " \
  "$(cifar "$tmp/good" '{"kind": "cnn", "layers": [{"type": "conv", "channels": 4, "kernel": 3, "stride": 4}, {"type": "maxpool"}, {"type": "conv", "channels": 4, "kernel": 5}, {"type": "dense", "units": 10}]}')" \
  "does not fit the 4x4x4 input"
expect_refused cnn_odd_pool "model.layers[1]: " \
  "$(cifar "$tmp/good" '{"kind": "cnn", "layers": [{"type": "conv", "channels": 4, "kernel": 4}, {"type": "maxpool"}, {"type": "dense", "units": 10}]}')" \
  "4x29x29"
expect_refused cnn_group_norm_groups "model.layers[1].groups: " \
  "$(cifar "$tmp/good" '{"kind": "cnn", "layers": [{"type": "conv", "channels": 4, "kernel": 3}, {"type": "group_norm", "groups": 3}, {"type": "dense", "units": 10}]}')" \
  "3 groups do not divide the 4 channels of the 4x30x30 input"
expect_refused resnet_groups "model.groups: " \
  "$(cifar "$tmp/good" '{"kind": "resnet", "norm": "group", "groups": 3}')" "16 channels"
expect_refused resnet_norm "model.norm: " "$(cifar "$tmp/good" '{"kind": "resnet", "norm": "batch"}')"
expect_refused resnet_shortcut "model.shortcut: " "$(cifar "$tmp/good" '{"kind": "resnet", "shortcut": "identity"}')"
expect_refused lenet5_too_small "model.kind: " \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"features\": 48, \"classes\": 10, \"image_shape\": [3, 4, 4]}, \"model\": {\"kind\": \"lenet5\"}, $stop}" \
  "3x4x4"
# data.image_shape: three numbers whose product is the feature count.
expect_refused image_shape_product "data.image_shape: " \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"features\": 100, \"image_shape\": [3, 32, 32]}, \"model\": {\"kind\": \"lenet5\"}, $stop}" \
  "3072 features"
expect_refused image_shape_length "data.image_shape: " \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"features\": 1024, \"image_shape\": [32, 32]}, \"model\": {\"kind\": \"lenet5\"}, $stop}" \
  "[channels, height, width]"
expect_refused image_shape_zero "data.image_shape" \
  "{\"workers\": 1, \"data\": {\"source\": \"synthetic-classification\", \"features\": 1024, \"image_shape\": [0, 32, 32]}, \"model\": {\"kind\": \"lenet5\"}, $stop}"
printf 'label,a,b,c\n1,0,0,1\n0,1,1,0\n' > "$tmp/small.csv"
expect_refused image_shape_csv "data.image_shape: " \
  "{\"workers\": 1, \"data\": {\"source\": \"csv\", \"path\": \"$tmp/small.csv\", \"image_shape\": [1, 2, 2]}, \"model\": {\"kind\": \"softmax\"}, \"algorithm\": {\"batch_size\": 1}, $stop}" \
  "$tmp/small.csv has 3"

# A CSV file of 1x2x2 images (10 classes) runs a layer list shape-checked on 1x2x2.
{ echo 'label,a,b,c,d'; for k in 0 1 2 3 4 5 6 7 8 9; do echo "$k,0.$k,1,0,0.5"; done; } > "$tmp/images.csv"
printf '%s' "{\"workers\": 1, \"data\": {\"source\": \"csv\", \"path\": \"$tmp/images.csv\", \"image_shape\": [1, 2, 2]}, \"model\": {\"kind\": \"cnn\", \"layers\": [{\"type\": \"conv\", \"channels\": 2, \"kernel\": 2}, {\"type\": \"relu\"}, {\"type\": \"dense\", \"units\": 10}]}, \"algorithm\": {\"batch_size\": 2}, $stop}" > "$tmp/csv-images.json"
check "csv + image_shape + cnn runs" "$dlsim" run "$tmp/csv-images.json" --out "$tmp/csv-run" --quiet
expect_refused csv_kernel_too_large "model.layers[0].kernel: " \
  "$(sed 's/"kernel": 2/"kernel": 3/' "$tmp/csv-images.json")" "does not fit the 1x2x2 input"

# The valid folder runs softmax and a ResNet-20 as in He et al. (option A, group norm).
printf '%s' "$(cifar "$tmp/good" '{"kind": "resnet", "depth": 20, "shortcut": "zero_pad", "norm": "group", "groups": 8}')" > "$tmp/resnet20.json"
check "cifar10 + resnet-20 validates" "$dlsim" validate "$tmp/resnet20.json"
check "cifar10 + resnet-20 runs" "$dlsim" run "$tmp/resnet20.json" --out "$tmp/run" --quiet
check "metrics written" test -s "$tmp/run/metrics.csv"

refusals_summary
