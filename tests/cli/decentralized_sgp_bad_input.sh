#!/usr/bin/env bash
# Compressed push-sum (choco-sgp, adag-sgp) and metrics.per_worker refuse what they cannot
# do (exit 2, one line `dlsim: error: <where>: <what>`, nothing written); the CHOCO kinds'
# refusal on directed graphs names the push-sum variant to use instead.
# Usage: decentralized_sgp_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

avg='"workers": 8, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 4}'
dexp='"topology": {"kind": "directed-exponential"}'
expect_refused choco_sgd_points_to_choco_sgp \
  "topology.kind: choco-sgd needs a symmetric (undirected) graph, but directed-exponential is directed; use choco-sgp" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgd\"}, $dexp}"
expect_refused adag_sgd_points_to_adag_sgp \
  "topology.kind: adag-sgd needs a symmetric (undirected) graph, but directed-ring is directed; use adag-sgp" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgd\"}, \"topology\": {\"kind\": \"directed-ring\"}}"
expect_refused gossip_points_to_choco_sgp "topology.kind: choco-gossip needs a symmetric" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-gossip\"}, \"topology\": {\"kind\": \"one-peer-exponential\"}}"
expect_refused choco_sgp_gamma_above_one "algorithm.consensus_step" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgp\", \"consensus_step\": 1.5}, $dexp}"
expect_refused choco_sgp_gamma_zero "algorithm.consensus_step" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgp\", \"consensus_step\": 0}, $dexp}"
expect_refused choco_sgp_one_worker "workers: choco-sgp needs at least 2" \
  '{"workers": 1, "data": {"source": "none"}, "model": {"kind": "consensus", "dimension": 4}, "algorithm": {"kind": "choco-sgp"}, "topology": {"kind": "complete"}}'
expect_refused choco_sgp_has_no_beta "algorithm.beta" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgp\", \"beta\": 0.9}, $dexp}"
expect_refused choco_sgp_has_no_order "algorithm.order" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgp\", \"order\": \"choco-paper\"}, $dexp}"
expect_refused adag_sgp_beta_one "algorithm.beta" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgp\", \"beta\": 1}, $dexp}"
expect_refused adag_sgp_negative_epsilon "algorithm.epsilon" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgp\", \"epsilon\": -1}, $dexp}"
expect_refused adag_sgp_bad_compressor "algorithm.compressor" \
  "{$avg, \"algorithm\": {\"kind\": \"adag-sgp\", \"compressor\": {\"kind\": \"top-k\", \"k\": 9}}, $dexp}"
expect_refused per_worker_centralized "metrics.per_worker: sgd keeps one model" \
  '{"workers": 4, "algorithm": {"kind": "sgd"}, "metrics": {"per_worker": true}}'
expect_refused per_worker_profile "metrics.per_worker: model kind \"profile\"" \
  '{"workers": 4, "model": {"kind": "profile", "parameters": 100, "compute_time": "1ms"}, "algorithm": {"kind": "dpsgd"}, "metrics": {"per_worker": true}}'
expect_refused per_worker_not_boolean "metrics.per_worker" \
  "{$avg, \"algorithm\": {\"kind\": \"choco-sgp\"}, $dexp, \"metrics\": {\"per_worker\": \"yes\"}}"

refusals_summary
