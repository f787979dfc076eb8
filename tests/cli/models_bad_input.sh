#!/usr/bin/env bash
# Bad data and impossible model/data combinations (issue 4) are refused like every
# bad input (docs/design.md §3): exit code 2, one line `dlsim: error: <key>: <what>` that
# names the file and line for malformed data files, and no output folder.
# Usage: models_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# Data files.
printf '1 1:0.5 2:1\n-1 1:x\n' > "$tmp/bad_value.svm"
printf '1 1:0.5\n1 3:1 2:1\n' > "$tmp/unordered.svm"
printf '1 1:0.5\n-1 2:1\n1 1:1\n-1 2:2\n' > "$tmp/good.svm"
printf '1 0:0.5\n' > "$tmp/zero_index.svm"
printf '0 1:1\n1 1:2\n2 1:3\n0 1:4\n1 1:5\n2 1:6\n' > "$tmp/three.svm"
printf 'x,label\n1,0.5\n2,1.5\n3,0.5\n4,1.5\n' > "$tmp/real_labels.csv"
mkdir -p "$tmp/fmnist"
printf '\x00\x00\x08\x02\x00\x00\x00\x01' | gzip > "$tmp/fmnist/train-labels-idx1-ubyte.gz"
printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x01\x00\x00\x00\x01\x07' | gzip > "$tmp/fmnist/train-images-idx3-ubyte.gz"
cp "$tmp/fmnist/train-labels-idx1-ubyte.gz" "$tmp/fmnist/t10k-labels-idx1-ubyte.gz"
cp "$tmp/fmnist/train-images-idx3-ubyte.gz" "$tmp/fmnist/t10k-images-idx3-ubyte.gz"
mkdir -p "$tmp/fmnist_trunc"
printf '\x00\x00\x08\x03\x00\x00\x00\x05\x00\x00\x00\x02\x00\x00\x00\x02\x01\x02' | gzip > "$tmp/fmnist_trunc/train-images-idx3-ubyte.gz"
printf '\x00\x00\x08\x01\x00\x00\x00\x05\x01\x02\x03\x04\x05' | gzip > "$tmp/fmnist_trunc/train-labels-idx1-ubyte.gz"
printf 'not gzip at all' > "$tmp/fmnist_trunc/t10k-images-idx3-ubyte.gz"

stop='"stop": {"iterations": 2}'
ls='"model": {"kind": "least-squares"}'

# Malformed files: the key of the path, then file:line.
expect_refused libsvm_bad_value "data.path: $tmp/bad_value.svm:2: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/bad_value.svm\"}, $ls, $stop}" \
  'value "x" is not a number'
expect_refused libsvm_unordered "data.path: $tmp/unordered.svm:2: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/unordered.svm\"}, $ls, $stop}" \
  "strictly increasing"
expect_refused libsvm_zero_index "data.path: $tmp/zero_index.svm:1: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/zero_index.svm\"}, $ls, $stop}" \
  "1-based"
expect_refused libsvm_bad_test "data.test_path: $tmp/bad_value.svm:2: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/good.svm\", \"test_path\": \"$tmp/bad_value.svm\"}, $ls, $stop}"
expect_refused libsvm_missing "data.path: $tmp/none.svm: cannot read file" \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/none.svm\"}, $ls, $stop}"
expect_refused fmnist_missing "data.path: $tmp/nowhere/train-images-idx3-ubyte.gz: cannot read file" \
  "{\"data\": {\"source\": \"fashion-mnist\", \"path\": \"$tmp/nowhere\"}, \"model\": {\"kind\": \"softmax\"}, $stop}"
expect_refused fmnist_bad_magic "data.path: $tmp/fmnist/train-labels-idx1-ubyte.gz: " \
  "{\"workers\": 1, \"data\": {\"source\": \"fashion-mnist\", \"path\": \"$tmp/fmnist\"}, \"model\": {\"kind\": \"softmax\"}, $stop}" \
  "bad magic number"
expect_refused fmnist_truncated "data.path: $tmp/fmnist_trunc/train-images-idx3-ubyte.gz: " \
  "{\"workers\": 1, \"data\": {\"source\": \"fashion-mnist\", \"path\": \"$tmp/fmnist_trunc\"}, \"model\": {\"kind\": \"softmax\"}, $stop}" \
  "expected 20 data bytes after the header, found 2"

# Labels that do not fit the model.
expect_refused logistic_multiclass_file "data.path: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/three.svm\"}, \"model\": {\"kind\": \"logistic\"}, $stop}" \
  "positive_classes"
expect_refused softmax_real_labels "data.path: " \
  "{\"workers\": 1, \"data\": {\"source\": \"csv\", \"path\": \"$tmp/real_labels.csv\"}, \"model\": {\"kind\": \"softmax\"}, $stop}" \
  "not an integer class label"
expect_refused logistic_multiclass_synthetic "model.positive_classes: " \
  '{"data": {"source": "synthetic-classification", "classes": 3}, "model": {"kind": "logistic"}, "stop": {"iterations": 2}}'
expect_refused logistic_fmnist "model.positive_classes: " \
  '{"data": {"source": "fashion-mnist"}, "model": {"kind": "logistic"}, "stop": {"iterations": 2}}'
expect_refused logistic_one_class "model.positive_classes: " \
  "{\"workers\": 1, \"data\": {\"source\": \"libsvm\", \"path\": \"$tmp/three.svm\"}, \"model\": {\"kind\": \"logistic\", \"positive_classes\": [7]}, $stop}" \
  "one class"
expect_refused softmax_regression_data "data.source: " \
  '{"data": {"source": "synthetic-regression"}, "model": {"kind": "softmax"}, "stop": {"iterations": 2}}'

# Impossible combinations and bad values.
expect_refused consensus_with_data "data.source: " \
  '{"data": {"source": "synthetic-regression"}, "model": {"kind": "consensus"}, "algorithm": {"kind": "dpsgd"}, "stop": {"iterations": 2}}'
expect_refused consensus_centralized "model.kind: " \
  '{"model": {"kind": "consensus"}, "algorithm": {"kind": "sgd"}, "stop": {"iterations": 2}}'
expect_refused consensus_eval_samples "metrics.eval_samples: " \
  '{"model": {"kind": "consensus"}, "algorithm": {"kind": "dpsgd"}, "metrics": {"eval_samples": 10}, "stop": {"iterations": 2}}'
expect_refused mlp_zero_width "model.hidden[0]: " \
  '{"data": {"source": "synthetic-classification"}, "model": {"kind": "mlp", "hidden": [0]}, "stop": {"iterations": 2}}'
expect_refused mlp_activation "model.activation: " \
  '{"data": {"source": "synthetic-classification"}, "model": {"kind": "mlp", "activation": "sigmoid"}, "stop": {"iterations": 2}}'
expect_refused dirichlet_alpha "data.partition.alpha: " \
  '{"data": {"partition": {"kind": "dirichlet", "alpha": 0}}, "stop": {"iterations": 2}}'
expect_refused shards_too_many "data.partition.per_worker: " \
  '{"workers": 4, "data": {"samples": 100, "partition": {"kind": "shards", "per_worker": 30}}, "algorithm": {"batch_size": 1}, "stop": {"iterations": 2}}'
expect_refused fmnist_test_fraction "data.test_fraction: " \
  '{"data": {"source": "fashion-mnist", "test_fraction": 0.1}, "model": {"kind": "softmax"}, "stop": {"iterations": 2}}'
expect_refused unknown_preset "data.preset: " \
  '{"data": {"preset": "cifar"}, "stop": {"iterations": 2}}'
expect_refused linear_he_init "model.init.kind: " \
  '{"model": {"kind": "logistic", "init": {"kind": "he"}}, "data": {"source": "synthetic-classification"}, "stop": {"iterations": 2}}'
# year-prediction-msd: the UCI layout (91 numbers per line, no header), split by position.
awk 'BEGIN { for (r = 0; r < 3; ++r) { printf "%d", 2000 + r; for (c = 1; c <= 90; ++c) printf ",%d", c; printf "\n" } }' \
  > "$tmp/msd3.txt"
awk 'NR == 2 { sub(/,90$/, "") } { print }' "$tmp/msd3.txt" > "$tmp/msd_short.txt"
msd() { echo "{\"workers\": 1, \"data\": {\"source\": \"year-prediction-msd\", \"path\": \"$1\"$2}, $ls, $stop}"; }
expect_refused msd_short_line "data.path: $tmp/msd_short.txt:2: " "$(msd "$tmp/msd_short.txt" ', "train_rows": 2')" \
  "expected 91 fields (year, then 90 features), found 90"
expect_refused msd_official_split "data.path: $tmp/msd3.txt: " "$(msd "$tmp/msd3.txt" '')" \
  "has 3 rows; the split keeps the first 463715 for training"
expect_refused msd_missing "data.path: $tmp/none.txt: cannot read file" "$(msd "$tmp/none.txt" '')"
expect_refused msd_test_fraction "data.test_fraction: " "$(msd "$tmp/msd3.txt" ', "train_rows": 2, "test_fraction": 0.5')"
expect_refused msd_classifier "data.source: " \
  "{\"data\": {\"source\": \"year-prediction-msd\", \"path\": \"$tmp/msd3.txt\"}, \"model\": {\"kind\": \"softmax\"}, $stop}" \
  'model kind "softmax" needs class labels; year-prediction-msd has real targets'

# Balanced Dirichlet shards: a boolean, under dirichlet only.
expect_refused balanced_not_bool "data.partition.balanced: " \
  '{"data": {"partition": {"kind": "dirichlet", "balanced": 1}}, "stop": {"iterations": 2}}'
expect_refused balanced_under_iid "data.partition.balanced: " \
  '{"data": {"partition": {"kind": "iid", "balanced": true}}, "stop": {"iterations": 2}}'
# normalize channel: images only; channel_mean and channel_std together, one per channel.
fm='"source": "fashion-mnist"'
sm='"model": {"kind": "softmax"}'
expect_refused channel_no_image "data.normalize: " \
  '{"data": {"normalize": "channel"}, "stop": {"iterations": 2}}' '"channel" needs images'
expect_refused channel_mean_alone "data.channel_std: " \
  "{\"data\": {$fm, \"normalize\": \"channel\", \"channel_mean\": [0.5]}, $sm, $stop}" \
  "must be given with data.channel_mean"
expect_refused channel_wrong_count "data.channel_mean: " \
  "{\"data\": {$fm, \"normalize\": \"channel\", \"channel_mean\": [0.5, 0.5], \"channel_std\": [0.5, 0.5]}, $sm, $stop}" \
  "needs one number per channel (1 for 1x28x28 images), got 2"
expect_refused channel_std_zero "data.channel_std[0]: " \
  "{\"data\": {$fm, \"normalize\": \"channel\", \"channel_mean\": [0.5], \"channel_std\": [0]}, $sm, $stop}"
expect_refused channel_keys_without_channel "data.channel_mean: " \
  "{\"data\": {$fm, \"normalize\": \"standard\", \"channel_mean\": [0.5], \"channel_std\": [0.5]}, $sm, $stop}" \
  'only with normalize "channel"'

refusals_summary
