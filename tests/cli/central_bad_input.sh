#!/usr/bin/env bash
# The centralized algorithms (qsgd, ef-sgd, svrg, lpc-svrg, alpc-svrg) refuse impossible
# combinations like every malformed input (docs/design.md §3): exit code 2, exactly
# one line `dlsim: error: <where>: <what>` on stderr, and nothing written to the
# output folder. Usage: central_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"


data='"data": {"source": "synthetic-regression", "samples": 200, "features": 5}'

expect_refused qsgd-other-compressor algorithm.compressor.kind \
  "{$data, \"algorithm\": {\"kind\": \"qsgd\", \"compressor\": {\"kind\": \"lpc\"}}}"
expect_refused ef-sgd-without-feedback algorithm.compressor.error_feedback \
  "{$data, \"algorithm\": {\"kind\": \"ef-sgd\", \"compressor\": {\"error_feedback\": false}}}"
expect_refused lpc-svrg-ring algorithm.collective \
  "{$data, \"algorithm\": {\"kind\": \"lpc-svrg\", \"collective\": \"ring-allreduce\"}}"
expect_refused svrg-ring-error-feedback algorithm.compressor.error_feedback \
  "{$data, \"algorithm\": {\"kind\": \"svrg\", \"collective\": \"ring-allreduce\", \"compressor\": {\"error_feedback\": true}}}"
expect_refused downlink-without-server algorithm.downlink_compressor \
  "{$data, \"algorithm\": {\"kind\": \"svrg\", \"collective\": \"allgather\", \"downlink_compressor\": {\"kind\": \"fp16\"}}}"
expect_refused downlink-bad-option algorithm.downlink_compressor.bits \
  "{$data, \"algorithm\": {\"kind\": \"svrg\", \"downlink_compressor\": {\"kind\": \"lpc\", \"bits\": 1}}}"
expect_refused profile-without-epoch-length algorithm.epoch_length \
  '{"model": {"kind": "profile", "parameters": 1000}, "algorithm": {"kind": "svrg"}}'
expect_refused alpc-without-sigma algorithm.sigma \
  "{$data, \"algorithm\": {\"kind\": \"alpc-svrg\"}}"
expect_refused alpc-momentum algorithm.momentum \
  "{$data, \"model\": {\"l2\": 0.1}, \"algorithm\": {\"kind\": \"alpc-svrg\", \"momentum\": 0.5}}"
expect_refused alpc-option-two-double-sampling algorithm.double_sampling \
  "{$data, \"model\": {\"l2\": 0.1}, \"algorithm\": {\"kind\": \"alpc-svrg\", \"option\": \"II\", \"double_sampling\": true}}"
expect_refused alpc-mlp-without-L algorithm.L \
  '{"data": {"source": "synthetic-classification", "samples": 100, "features": 4}, "model": {"kind": "mlp", "hidden": [4], "l2": 0.1}, "algorithm": {"kind": "alpc-svrg"}}'
expect_refused svrg-zero-epoch-length algorithm.epoch_length \
  "{$data, \"algorithm\": {\"kind\": \"svrg\", \"epoch_length\": 0}}"
expect_refused quantize-on-svrg algorithm.quantize \
  "{$data, \"algorithm\": {\"kind\": \"svrg\", \"quantize\": \"difference\"}}"

refusals_summary
