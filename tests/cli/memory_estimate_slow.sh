#!/usr/bin/env bash
# The memory estimate against measured peak RSS (issue 22): every shipped scenario
# (scenarios/**/*.json, found and shortened to 2 iterations with tools/compare-runs'
# find_scenarios and shortening; identical shortened runs once), run with --threads 1 and,
# for a few, --threads 2; most of them are dominated by their data, so every algorithm
# kind also runs with d = 10^5 on 64 workers, where its model-sized vectors dominate.
# summary.json's totals.peak_rss_estimate_bytes must be within a factor 1.5 of
# totals.peak_rss_bytes both ways (estimate/1.5 <= peak <= estimate*1.5).
# Prints one line per run and the smallest and largest ratio. About 2 minutes on 2 cores.
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
# CIFAR-10 is not shipped (nor packaged): its scenarios run only where its files are.
def data_absent(path):
    data = compare_runs.dlsim.read_scenario(path).get("data", {})
    folder = data.get("path", "/usr/share/datasets/cifar-10-batches-bin")
    return data.get("source") == "cifar10" and not os.path.isfile(os.path.join(folder, "data_batch_1.bin"))
for f in [f for f in files if data_absent(f)]:
    print(f"skip {os.path.relpath(f, src)}: the CIFAR-10 files are not installed")
    files.remove(f)
# Files whose shortened runs are the same run (experiment files that differ only in their
# sweep, stop condition, name or description, e.g. tuning rounds and final runs) are
# measured once: the same run has the same peak.
def shortened_identity(path):
    doc = dict(compare_runs.dlsim.read_scenario(path))
    for key in ("name", "description", "sweep", "stop", "output"):
        doc.pop(key, None)
    metrics = dict(doc.get("metrics", {}))
    metrics.pop("every", None)
    doc["metrics"] = metrics
    return json.dumps(doc, sort_keys=True)
first_with = {}
for f in list(files):
    identity = shortened_identity(f)
    if identity in first_with:
        print(f"same run as {os.path.relpath(first_with[identity], src)}: {os.path.relpath(f, src)}")
        files.remove(f)
    else:
        first_with[identity] = f
# Two threads keep two scratches: check the thread term on the models that have one.
two_threads = {"scenarios/examples/lenet5-fmnist-sgd.json", "scenarios/examples/fmnist-mlp-sgd.json",
               "scenarios/bench/choco-ring16-fmnist-softmax.json"}
cases = [(f, 1) for f in files] + [(f, 2) for f in files if os.path.relpath(f, src) in two_threads]
assert len(files) >= 50, f"only {len(files)} distinct shipped scenarios found"

# Model state first: consensus of d = 10^5 for the gossip kinds, softmax of 1000 features
# x 100 classes (d = 100,100) for the centralized ones, 64 workers, 4 iterations.
short = {"stop": {"iterations": 4}, "metrics": {"every": {"iterations": 2}}}
def consensus(algorithm, topology="ring"):
    return {"workers": 64, "model": {"kind": "consensus", "dimension": 100000},
            "algorithm": algorithm, "topology": {"kind": topology}, **short}
def softmax(algorithm):
    return {"workers": 64, "model": {"kind": "softmax"},
            "data": {"source": "synthetic-classification", "samples": 640, "features": 1000,
                     "classes": 100},
            "algorithm": {"batch_size": 4, **algorithm}, **short}
synthetic = {f"{kind}-consensus": consensus({"kind": kind}) for kind in
             ["dpsgd", "sgp", "choco-sgd", "adag-sgd", "choco-gossip", "choco-sgp", "adag-sgp"]}
synthetic["choco-sgd-random-matching"] = consensus({"kind": "choco-sgd"}, "random-matching")
synthetic["choco-sgd-top-k-error-feedback"] = consensus(
    {"kind": "choco-sgd", "compressor": {"kind": "top-k", "ratio": 0.1, "error_feedback": True}})
for collective in ["parameter-server", "allgather", "ring-allreduce"]:
    synthetic[f"sgd-{collective}-softmax"] = softmax({"kind": "sgd", "collective": collective})
for kind in ["qsgd", "ef-sgd", "svrg", "lpc-svrg"]:
    synthetic[f"{kind}-softmax"] = softmax({"kind": kind})
synthetic["alpc-svrg-softmax"] = softmax({"kind": "alpc-svrg", "L": 1, "sigma": 0.1})
synthetic["sgd-momentum-top-k-error-feedback-softmax"] = softmax(
    {"kind": "sgd", "momentum": 0.9, "compressor": {"kind": "top-k", "ratio": 0.01,
                                                    "error_feedback": True}})
for name, doc in synthetic.items():
    path = os.path.join(tmp, f"{name}.json")
    with open(path, "w") as f:
        json.dump(doc, f)
    cases.append((path, 1))

def run(case):
    path, threads = case
    shipped = path.startswith(src)
    rel = os.path.relpath(path, src) if shipped else "d=1e5: " + os.path.basename(path)
    out = os.path.join(tmp, "out", rel.replace("/", "_") + f"-t{threads}")
    args = [dlsim, "run", path, "--threads", str(threads), "--quiet", "--out", out]
    # Two iterations and two metrics rows: the peak comes with the first evaluation.
    for assignment in compare_runs.shortening(path, 2, 2) if shipped else []:
        args += ["--set", assignment]
    # Linux keeps ru_maxrss across execve: a dlsim exec'd in a fork of this Python process
    # would report at least Python's resident set. A shell that forks dlsim as its child
    # (not its last command, so not exec'd) gives dlsim a fresh high-water mark.
    r = subprocess.run(["sh", "-c", '"$@"; exit $?', "sh"] + args, capture_output=True, text=True)
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
