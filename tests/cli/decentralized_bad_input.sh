#!/usr/bin/env bash
# Gossip algorithms refuse graphs and settings they cannot work with (exit 2, one line
# `dlsim: error: <where>: <what>`, nothing written): the CHOCO family needs undirected
# static graphs, sgp sends uncompressed pairs, choco-gossip only averages.
# Usage: decentralized_bad_input.sh DLSIM_BINARY SOURCE_DIR
set -uo pipefail
dlsim=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

# expect_refused NAME WHERE-PREFIX SCENARIO-TEXT
expect_refused() {
  local name=$1 where=$2 text=$3
  local file="$tmp/$name.json" out="$tmp/out-$name"
  printf '%s' "$text" > "$file"
  "$dlsim" run "$file" --out "$out" --quiet > "$tmp/stdout" 2> "$tmp/stderr"
  local rc=$?
  local first
  first=$(head -n 1 "$tmp/stderr")
  if [ "$rc" -ne 2 ]; then
    echo "FAIL $name: exit code $rc, expected 2 (stderr: $first)"; failures=$((failures + 1)); return
  fi
  if [ "$(wc -l < "$tmp/stderr")" -ne 1 ]; then
    echo "FAIL $name: expected one line on stderr:"; cat "$tmp/stderr"; failures=$((failures + 1)); return
  fi
  case "$first" in
    "dlsim: error: $where"*) ;;
    *) echo "FAIL $name: got '$first', expected prefix 'dlsim: error: $where'"; failures=$((failures + 1)); return ;;
  esac
  if [ -e "$out" ]; then
    echo "FAIL $name: the output folder was created"; failures=$((failures + 1)); return
  fi
  echo "ok   $name: $first"
}

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

[ "$failures" -eq 0 ] || exit 1
