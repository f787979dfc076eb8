#!/usr/bin/env bash
# Per-worker outputs after a node failure (metrics.per_worker, output.save_model): the rows
# of workers.csv after the failure name the survivors by their worker ids (the failed one
# left out, the others keeping theirs), and workers/model_<id>.npy is each survivor's own
# model: ||x_id − x̄||², computed from the saved files (x̄ = model.npy), is the
# consensus_distance workers.csv gives worker id in its last row, and the mean of the
# survivors' files is model.npy. (Before the fix the survivors were renumbered 0..n−3:
# worker 3's file held worker 4's model, and model_7.npy and model_8.npy were missing.)
# Usage: failure_per_worker.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

for kind in dpsgd choco-sgd sgp; do
  failure_scenario "$kind" > "$tmp/$kind.json"
  "$dlsim" run "$tmp/$kind.json" --out "$tmp/$kind" --quiet
  check "$kind: survivors keep their ids in workers.csv and workers/model_<id>.npy" \
    "$py" - "$tmp/$kind" <<'PY'
import json, os, sys
import numpy as np
import pandas as pd
d = sys.argv[1]
summary = json.load(open(os.path.join(d, "summary.json")))
stopped = {f["node"]: f["iterations_done"] for f in summary["failures"]["nodes"]
           if f.get("stopped_s") is not None}
assert set(stopped) == {3, 6}, summary["failures"]
w = pd.read_csv(os.path.join(d, "workers.csv"))
for it, rows in w.groupby("iteration"):
    want = [i for i in range(9) if i not in stopped or it <= stopped[i]]
    assert list(rows["worker"]) == want, (it, list(rows["worker"]), want)
last = w[w["iteration"] == w["iteration"].max()].set_index("worker")
mean = np.load(os.path.join(d, "model.npy"))
files = sorted(os.listdir(os.path.join(d, "workers")))
assert files == [f"model_{i}.npy" for i in (0, 1, 2, 4, 5, 7, 8)], files
models = {i: np.load(os.path.join(d, "workers", f"model_{i}.npy")) for i in last.index}
for i, x in models.items():
    got, want = float(np.sum((x - mean) ** 2)), last.loc[i, "consensus_distance"]
    assert abs(got - want) <= 1e-9 * max(want, 1e-300) + 1e-300, (i, got, want)
assert np.allclose(np.mean(list(models.values()), axis=0), mean, rtol=1e-12, atol=1e-15)
PY
done
echo "$passed passed, 0 failed"
