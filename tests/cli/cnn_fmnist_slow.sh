#!/usr/bin/env bash
# LeNet-5 on Fashion-MNIST end to end (issue 11): scenarios/examples/lenet5-fmnist-sgd.json, one
# worker, 10 epochs, must reach >= 89% on the official test set (measured: 90.2%; the
# model is known to reach about 90%). Prints the wall time. About 2 CPU minutes.
# Needs the Debian package dataset-fashion-mnist (tools/setup.sh).
# Usage: cnn_fmnist_slow.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
dlsim=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

start=$(date +%s)
"$dlsim" run "$src/scenarios/examples/lenet5-fmnist-sgd.json" --out "$tmp/run" --quiet
rc=$?
if [ $rc -ne 0 ]; then
  echo "FAIL lenet5-fmnist-sgd: exit code $rc"
  exit 1
fi
elapsed=$(($(date +%s) - start))
accuracy=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["final"]["test_accuracy"])' "$tmp/run/summary.json")
if /usr/bin/python3 -c 'import sys; sys.exit(0 if float(sys.argv[1]) >= 0.89 else 1)' "$accuracy"; then
  echo "ok   lenet5-fmnist-sgd: 10-epoch test accuracy $accuracy >= 0.89 (${elapsed} s wall)"
else
  echo "FAIL lenet5-fmnist-sgd: 10-epoch test accuracy $accuracy < 0.89 (${elapsed} s wall)"
  exit 1
fi
