#!/usr/bin/env bash
# network.model end to end: SGD over ring all-reduce (4 workers, profile model of 1e6 fp32
# parameters, 10 ms compute, 10 us / 1 Gbit/s) takes per iteration
#   cm02: 0.010 + 2(n-1)(alpha + (M/n)/beta)
#   lv08: 0.010 + 2(n-1)(13.01 alpha + (M/n)/(0.97 beta))   (sim/network/network_model.hpp)
# Usage: network_model.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

cat > "$tmp/ring.json" <<'JSON'
{"name": "ring", "seed": 1, "workers": 4,
 "model": {"kind": "profile", "parameters": 1000000, "compute_time": "10ms"},
 "algorithm": {"kind": "sgd", "collective": "ring-allreduce", "batch_size": 1},
 "network": {"latency": "10us", "bandwidth": "1Gbps"},
 "stop": {"iterations": 3}, "metrics": {"every": {"iterations": 1}}}
JSON
"$dlsim" run "$tmp/ring.json" --out "$tmp/cm02" --quiet
"$dlsim" run "$tmp/ring.json" --set network.model=lv08 --out "$tmp/lv08" --quiet

check "iteration times match the closed forms of cm02 and lv08" "$py" - "$tmp" <<'PY'
import sys
import pandas as pd
alpha, beta, bits, n = 10e-6, 1e9, 32e6, 4
step = {"cm02": alpha + bits / n / beta, "lv08": 13.01 * alpha + bits / n / (0.97 * beta)}
for model, s in step.items():
    t = pd.read_csv(f"{sys.argv[1]}/{model}/metrics.csv")["time_s"]
    expected = [k * (0.010 + 2 * (n - 1) * s) for k in range(4)]
    for got, want in zip(t, expected):
        assert abs(got - want) <= 1e-9 * max(want, 1e-12), (model, list(t), expected)
PY
echo "$passed passed, 0 failed"
