#!/usr/bin/env bash
# The memory estimate against measured peak RSS (issue 22): every shipped scenario
# (scenarios/**/*.json, found and shortened to a few iterations exactly as
# tools/compare-runs does: its find_scenarios and shortening), run with --threads 1 and,
# for a few, --threads 2; summary.json's totals.peak_rss_estimate_bytes must be within a
# factor 1.5 of totals.peak_rss_bytes both ways (estimate/1.5 <= peak <= estimate*1.5).
# Prints one line per run and the smallest and largest ratio. About 3 minutes on 2 cores.
# Usage: memory_estimate_slow.sh DLSIM_BINARY SOURCE_DIR
set -euo pipefail
source "$(dirname "$0")/lib/harness.sh"
cli_setup "$@"

"$py" - "$dlsim" "$src" "$tmp" <<'PY'
import concurrent.futures, importlib.machinery, importlib.util, json, os, subprocess, sys

dlsim, src, tmp = sys.argv[1:4]
loader = importlib.machinery.SourceFileLoader("compare_runs", os.path.join(src, "tools", "compare-runs"))
spec = importlib.util.spec_from_loader("compare_runs", loader)
compare_runs = importlib.util.module_from_spec(spec)
loader.exec_module(compare_runs)

files, _ = compare_runs.find_scenarios([os.path.join(src, "scenarios")])
# Two threads keep two scratches: check the thread term on the models that have one.
two_threads = {"scenarios/examples/lenet5-fmnist-sgd.json", "scenarios/examples/fmnist-mlp-sgd.json",
               "scenarios/bench/choco-ring16-fmnist-softmax.json"}
cases = [(f, 1) for f in files] + [(f, 2) for f in files if os.path.relpath(f, src) in two_threads]
assert len(files) >= 50, f"only {len(files)} shipped scenarios found"

def run(case):
    path, threads = case
    rel = os.path.relpath(path, src)
    out = os.path.join(tmp, rel.replace("/", "_") + f"-t{threads}")
    args = [dlsim, "run", path, "--threads", str(threads), "--quiet", "--out", out]
    for assignment in compare_runs.shortening(path, 6, 2):
        args += ["--set", assignment]
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode != 0:
        return rel, threads, None, r.stderr.strip()
    with open(os.path.join(out, "summary.json")) as f:
        totals = json.load(f)["totals"]
    return rel, threads, totals, ""

failed, ratios = [], []
with concurrent.futures.ThreadPoolExecutor(2) as pool:
    for rel, threads, t, err in pool.map(run, cases):
        if t is None:
            failed.append(f"{rel} --threads {threads}: {err}")
            continue
        peak, estimate = t["peak_rss_bytes"], t["peak_rss_estimate_bytes"]
        ratio = estimate / peak
        ratios.append(ratio)
        ok = estimate / 1.5 <= peak <= estimate * 1.5
        print(f"{'ok  ' if ok else 'FAIL'} {rel:72s} t{threads} peak {peak / 1e6:8.1f} MB "
              f"estimate {estimate / 1e6:8.1f} MB ratio {ratio:.2f}")
        if not ok:
            parts = {k: round(v / 1e6, 1) for k, v in t["peak_rss_estimate_parts"].items()}
            failed.append(f"{rel} --threads {threads}: ratio {ratio:.2f}, parts (MB) {parts}")
print(f"{len(ratios)} runs, estimate/peak from {min(ratios):.2f} to {max(ratios):.2f}")
for line in failed:
    print("FAIL", line)
sys.exit(1 if failed else 0)
PY
