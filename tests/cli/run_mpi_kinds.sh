#!/usr/bin/env bash
# Every algorithm kind and collective across MPI ranks (docs/design.md §6 "Across ranks"):
# `mpirun -np 2 dlsim run` gives the single-process metrics.csv (all but wall_s) for
# SGD, QSGD and EF-SGD over a parameter server, allgather and ring all-reduce; SVRG,
# LPC-SVRG and ALPC-SVRG (double sampling); SGP, CHOCO-SGP and AdaG-SGP on directed and
# one-peer graphs; D-PSGD, CHOCO-SGD and AdaG-SGD on time-varying graphs; CHOCO-gossip at
# K = 3. (run_mpi.sh checks five of them in depth.)
# Skipped (exit 0, message) only when dlsim was built without MPI.
# Usage: run_mpi_kinds.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

skip_without_mpi

cat > "$tmp/base.json" <<'JSON'
{"name": "kinds", "workers": 5, "seed": 4,
 "data": {"source": "synthetic-classification", "samples": 500, "features": 16, "classes": 2},
 "model": {"kind": "logistic", "l2": 0.01},
 "algorithm": {"kind": "sgd", "step_size": 0.1, "batch_size": 5},
 "stop": {"iterations": 24},
 "metrics": {"every": {"iterations": 6}}}
JSON
cat > "$tmp/gossip.json" <<'JSON'
{"name": "gossip", "workers": 6, "seed": 4, "data": {"source": "none"},
 "model": {"kind": "consensus", "dimension": 20},
 "algorithm": {"kind": "choco-gossip", "consensus_step": 0.3,
               "compressor": {"kind": "top-k", "k": 4}},
 "topology": {"kind": "ring"}, "stop": {"iterations": 30}, "metrics": {"every": {"iterations": 10}}}
JSON

without_wall() { sed 's/,[^,]*$//' "$1"; }  # wall_s is metrics.csv's last column

# same NAME K SCENARIO [--set KEY=VALUE...]: K ranks == one process.
same() {
  local name=$1 k=$2 file=$3
  shift 3
  "$dlsim" run "$file" "$@" --out "$tmp/$name.1" --quiet
  mpirun --allow-run-as-root --oversubscribe -np "$k" "$dlsim" run "$file" "$@" \
    --out "$tmp/$name.$k" --quiet > /dev/null
  check "$name: $k ranks == one process" \
    cmp -s <(without_wall "$tmp/$name.1/metrics.csv") <(without_wall "$tmp/$name.$k/metrics.csv")
}

topk='"compressor":{"kind":"top-k","k":4}'
same sgd-ps 2 "$tmp/base.json" --set 'algorithm={"kind":"sgd","collective":"parameter-server","step_size":0.1,"batch_size":5}'
same qsgd-ps 2 "$tmp/base.json" --set 'algorithm={"kind":"qsgd","collective":"parameter-server","step_size":0.1,"batch_size":5}'
same qsgd-allgather 2 "$tmp/base.json" --set 'algorithm={"kind":"qsgd","collective":"allgather","step_size":0.1,"batch_size":5}'
same ef-sgd-ps 2 "$tmp/base.json" --set 'algorithm={"kind":"ef-sgd","collective":"parameter-server","step_size":0.1,"batch_size":5}'
same sgd-ring-fp16 2 "$tmp/base.json" --set 'algorithm={"kind":"sgd","collective":"ring-allreduce","step_size":0.1,"batch_size":5,"compressor":{"kind":"fp16"}}'
same svrg-ps 2 "$tmp/base.json" --set 'algorithm={"kind":"svrg","collective":"parameter-server","step_size":0.1,"batch_size":5,"epoch_length":8}'
same lpc-svrg-allgather 2 "$tmp/base.json" --set 'algorithm={"kind":"lpc-svrg","collective":"allgather","step_size":0.1,"batch_size":5,"epoch_length":8}'
same alpc-svrg-ps 2 "$tmp/base.json" --set 'algorithm={"kind":"alpc-svrg","collective":"parameter-server","batch_size":5,"epoch_length":8,"double_sampling":true}'
same sgp-directed 2 "$tmp/base.json" --set 'algorithm={"kind":"sgp","step_size":0.1,"batch_size":5}' --set 'topology={"kind":"directed-exponential"}'
same choco-sgp-one-peer 2 "$tmp/base.json" --set "algorithm={\"kind\":\"choco-sgp\",\"step_size\":0.1,\"batch_size\":5,\"consensus_step\":0.3,$topk}" --set 'topology={"kind":"one-peer-exponential"}'
same adag-sgp-one-peer 2 "$tmp/base.json" --set "algorithm={\"kind\":\"adag-sgp\",\"step_size\":0.1,\"batch_size\":5,\"consensus_step\":0.3,$topk}" --set 'topology={"kind":"one-peer-exponential"}'
same dpsgd-one-peer 2 "$tmp/base.json" --set 'algorithm={"kind":"dpsgd","step_size":0.1,"batch_size":5}' --set 'topology={"kind":"one-peer-exponential"}'
same choco-matching 2 "$tmp/base.json" --set workers=6 --set "algorithm={\"kind\":\"choco-sgd\",\"step_size\":0.1,\"batch_size\":5,\"consensus_step\":0.3,$topk}" --set 'topology={"kind":"random-matching"}'
same adag-matching 2 "$tmp/base.json" --set workers=6 --set "algorithm={\"kind\":\"adag-sgd\",\"step_size\":0.1,\"batch_size\":5,\"consensus_step\":0.3,$topk}" --set 'topology={"kind":"random-matching"}'
same choco-gossip 3 "$tmp/gossip.json"

echo "$passed passed, 0 failed"
