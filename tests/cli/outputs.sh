#!/usr/bin/env bash
# Outputs beyond metrics.csv: summary.json "run" (provenance: argv, host, times, commit,
# version, threads, instruction_set), output.save_model (model.npy and
# workers/model_<i>.npy, read back with NumPy and checked against metrics.csv recomputed
# from the saved models), and scenario files with comments.
# Usage: outputs.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

# A small regression problem in a CSV file: y = 2 x1 - x2 + 0.5 + noise.
"$py" - "$tmp/data.csv" <<'PY'
import sys
import numpy as np
rng = np.random.default_rng(3)
x = rng.normal(size=(64, 2))
y = 2 * x[:, 0] - x[:, 1] + 0.5 + 0.1 * rng.normal(size=64)
with open(sys.argv[1], "w") as f:
    f.write("x1,x2,label\n")
    for (a, b), t in zip(x, y):
        f.write(f"{a!r},{b!r},{t!r}\n")
PY

# A decentralized run (every worker holds its own model), commented like an experiment file.
cat > "$tmp/dpsgd.json" <<JSON
// D-PSGD on a ring of 4, least squares on a 64-row CSV file.
{
  "name": "saved", /* the run's name */
  "workers": 4,
  "data": {"source": "csv", "path": "$tmp/data.csv"},
  "model": {"kind": "least-squares", "l2": 0.01},   // l2 enters train_loss
  "algorithm": {"kind": "dpsgd", "step_size": 0.1, "batch_size": 4},
  "topology": {"kind": "ring"},
  "stop": {"iterations": 7},
  "metrics": {"every": {"iterations": 3}, "per_worker": true},
  "output": {"save_model": true}
}
JSON
before=$(date -u +%Y-%m-%dT%H:%M:%SZ)
"$dlsim" run "$tmp/dpsgd.json" --out "$tmp/run" --quiet --threads 2
after=$(date -u +%Y-%m-%dT%H:%M:%SZ)

check "provenance in summary.json" "$py" - "$tmp/run" "$dlsim" "$tmp/dpsgd.json" "$before" "$after" "$(hostname)" <<'PY'
import json, re, sys
run, exe, scenario, before, after, host = sys.argv[1:]
summary = json.load(open(f"{run}/summary.json"))
r = summary["run"]
assert set(r) == {"argv", "host", "started_utc", "finished_utc", "git_commit", "git_dirty",
                  "dlsim_version", "threads", "instruction_set"}, sorted(r)
assert r["argv"] == [exe, "run", scenario, "--out", run, "--quiet", "--threads", "2"], r["argv"]
assert r["host"] == host, (r["host"], host)
stamp = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$")
assert stamp.match(r["started_utc"]) and stamp.match(r["finished_utc"]), r
assert before <= r["started_utc"] <= r["finished_utc"] <= after, (before, r, after)
assert r["git_commit"] is None or re.match(r"^[0-9a-f]{40}$", r["git_commit"]), r["git_commit"]
assert (r["git_commit"] is None) == (r["git_dirty"] is None), r
assert r["dlsim_version"] == summary["version"]
assert r["threads"] == 2
# The kernels' instruction set, against this processor's flags read independently.
flags = set()
try:
    for line in open("/proc/cpuinfo"):
        if line.startswith("flags"):
            flags = set(line.split(":", 1)[1].split())
            break
except OSError:
    pass
if flags:
    expected = ("avx512" if {"avx512f", "avx512bw"} <= flags else
                "avx2" if {"avx2", "fma", "bmi2", "popcnt"} <= flags else "baseline")
    assert r["instruction_set"] == expected, (r["instruction_set"], expected)
else:
    assert r["instruction_set"] in ("baseline", "avx2", "avx512"), r["instruction_set"]
PY

check "model.npy and workers/model_<i>.npy reproduce the last metrics row" \
  "$py" - "$tmp/run" "$tmp/data.csv" <<'PY'
import sys
import numpy as np
import pandas as pd
run, data = sys.argv[1:]
mean = np.load(f"{run}/model.npy")
workers = [np.load(f"{run}/workers/model_{i}.npy") for i in range(4)]
assert mean.dtype == np.float64 and mean.shape == (3,), (mean.dtype, mean.shape)  # w1, w2, bias
assert np.allclose(np.mean(workers, axis=0), mean, rtol=0, atol=1e-15)
last = pd.read_csv(f"{run}/metrics.csv").iloc[-1]
assert last["iteration"] == 7
# consensus distance (1/n) Σ ||x_i − x̄||², recomputed from the saved models
cd = np.mean([np.sum((w - mean) ** 2) for w in workers])
assert abs(cd - last["consensus_distance"]) <= 1e-9 * last["consensus_distance"], (cd, last)
# train_loss (1/2N)||A w + β − b||² + (λ2/2)||w||² of the averaged model, on every row
df = pd.read_csv(data)
a, b = df[["x1", "x2"]].to_numpy(), df["label"].to_numpy()
r = a @ mean[:2] + mean[2] - b
loss = 0.5 * np.mean(r ** 2) + 0.5 * 0.01 * np.sum(mean[:2] ** 2)
assert abs(loss - last["train_loss"]) <= 1e-9 * loss, (loss, last["train_loss"])
# workers.csv has each worker's own train_loss at the same point
w = pd.read_csv(f"{run}/workers.csv")
w = w[w["iteration"] == 7].sort_values("worker")
for i, x in enumerate(workers):
    r = a @ x[:2] + x[2] - b
    own = 0.5 * np.mean(r ** 2) + 0.5 * 0.01 * np.sum(x[:2] ** 2)
    assert abs(own - w["train_loss"].iloc[i]) <= 1e-9 * own, (i, own, w["train_loss"].iloc[i])
PY

# A rerun without save_model leaves no stale model files behind.
"$dlsim" run "$tmp/dpsgd.json" --out "$tmp/run" --quiet --set output.save_model=false
check "a rerun removes model.npy" test ! -e "$tmp/run/model.npy"
check "a rerun removes workers/model_0.npy" test ! -e "$tmp/run/workers/model_0.npy"

# Centralized: model.npy is the shared replica; without per_worker no workers/ folder.
"$dlsim" run "$src/scenarios/quickstart.json" --out "$tmp/central" --quiet \
  --set 'stop={"iterations": 3}' --set output.save_model=true
check "centralized model.npy" "$py" - "$tmp/central" <<'PY'
import os, sys
import numpy as np
x = np.load(f"{sys.argv[1]}/model.npy")
assert x.shape == (51,), x.shape  # 50 features and the bias
assert np.isfinite(x).all() and np.any(x != 0)
assert not os.path.exists(f"{sys.argv[1]}/workers")
PY

# Refusals: exit 2, one line, nothing written (expect_refused reads the exit status).
set +e
expect_refused save_model_profile "output.save_model" \
  '{"model": {"kind": "profile", "parameters": 10}, "output": {"save_model": true}}'
expect_refused save_model_not_bool "output.save_model" '{"output": {"save_model": "yes"}}'
expect_refused comment_unterminated "$tmp/comment_unterminated.json: invalid JSON at line 2, column 2: a /* comment that is never closed" \
  $'{"workers": 2,\n /* never closed\n}'
layers='[{"name": "conv", "parameters": 10, "flops": 100}, {"name": "fc", "parameters": 5}]'
expect_refused layers_and_parameters "model.layers" \
  "{\"model\": {\"kind\": \"profile\", \"parameters\": 15, \"layers\": $layers}}" "not both"
expect_refused layers_duplicate_name "model.layers[1].name" \
  '{"model": {"kind": "profile", "layers": [{"name": "a", "parameters": 1}, {"name": "a", "parameters": 2}]}}' \
  'duplicate layer name "a"'
expect_refused layers_negative_flops "model.layers[0].flops" \
  '{"model": {"kind": "profile", "layers": [{"name": "a", "parameters": 1, "flops": -1}]}}'
expect_refused layers_unknown_key "model.layers[0].flop" \
  '{"model": {"kind": "profile", "layers": [{"name": "a", "parameters": 1, "flop": 3}]}}'
expect_refused profile_compute_time_negative "model.compute_time" \
  '{"model": {"kind": "profile", "parameters": 1, "compute_time": "-1ms"}}'
refusals_summary
