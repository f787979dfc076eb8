#!/usr/bin/env bash
# Gossip algorithms refuse graphs and settings they cannot work with (exit 2, one line
# `dlsim: error: <where>: <what>`, nothing written): the CHOCO family needs undirected
# static graphs, sgp sends uncompressed pairs, choco-gossip only averages.
# Usage: decentralized_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

avg='"workers": 8, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 4}'
expect_refused choco_directed_ring "topology.kind: choco-sgd needs a symmetric" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgd\"}, \"topology\": {\"kind\": \"directed-ring\"}}"
expect_refused adag_directed_exponential "topology.kind: adag-sgd needs a symmetric" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgd\"}, \"topology\": {\"kind\": \"directed-exponential\"}}"
expect_refused gossip_one_peer "topology.kind: choco-gossip needs a symmetric" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-gossip\"}, \"topology\": {\"kind\": \"one-peer-exponential\"}}"
expect_refused sgp_compressed "algorithm.compressor.kind: sgp sends uncompressed" \
  "{$avg, \"algorithm\": {\"kind\": \"sgp\", \"compressor\": {\"kind\": \"top-k\", \"k\": 2}}}"
expect_refused gossip_with_data "model.kind: choco-gossip only averages" \
  '{"workers": 4, "algorithm": {"kind": "choco-gossip"}}'
expect_refused choco_one_worker "workers: choco-sgd needs at least 2" \
  '{"workers": 1, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 4}, "algorithm": {"kind": "choco-sgd"}, "topology": {"kind": "complete"}}'
expect_refused adag_beta_one "algorithm.beta" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgd\", \"beta\": 1}}"
expect_refused choco_bad_order "algorithm.order" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgd\", \"order\": \"paper\"}}"
expect_refused dpsgd_has_no_gamma "algorithm.consensus_step" \
  "{$avg, \"algorithm\": {\"kind\": \"dpsgd\", \"consensus_step\": 0.5}}"

refusals_summary
